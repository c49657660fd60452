import "server-only";
import { searchSpecs } from "@/lib/config/search-specs";
import type { IdemConfig } from "@/lib/config/schema";
import { ensureSearchIndexes } from "@/lib/search/search-indexes";
import { summariseTail, type TailLatencySummary } from "./percentiles";
import type { WriterChild } from "./writer-child";

/** The writer's claim → complete with no searchable-field index, then with each one alone (issue #28 §1). */
export type SearchIndexCost = {
  rounds: number;
  /** Every round's calls together; `p99ByRound` shows how far one round is from the next. */
  without: TailLatencySummary & { p99ByRound: number[] };
  each: {
    index: string;
    tool: string;
    label: string;
    path: string;
    latency: TailLatencySummary & { p99ByRound: number[] };
    p99Ratio: number;
  }[];
};

/**
 * Rounds of none, then each index: run once each, whichever phase came first (just after the loaded
 * phases, on a colder cache) carried the difference (10 M rows: p99 47 ms none, 3.3 ms with the index).
 */
const ROUNDS = 2;

/**
 * What each expression index of `idem db index` costs the writers: the same open-loop schedule,
 * the writer alone (no console load), with none of them and with each built by itself, in rounds.
 * Leaves every configured index in place afterwards, as `npm start` would.
 */
export async function measureSearchIndexCost(
  url: string,
  config: Pick<IdemConfig, "tools">,
  writer: WriterChild,
  schedule: Parameters<WriterChild["run"]>[0],
  checkpoint: () => Promise<void>,
  log: (line: string) => void,
): Promise<SearchIndexCost> {
  const run = async () => {
    await checkpoint();
    return (await writer.run(schedule)).fromSchedule;
  };
  const specs = searchSpecs(config);
  const variants = [
    { spec: null, name: "none", samples: [] as number[], p99ByRound: [] as number[] },
    ...specs.map((spec) => ({
      spec,
      name: `${spec.indexName} only`,
      samples: [] as number[],
      p99ByRound: [] as number[],
    })),
  ];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of variants) {
      const only = variant.spec
        ? { tools: { [variant.spec.tool]: { search: { [variant.spec.label]: variant.spec.path } } } }
        : { tools: {} };
      await ensureSearchIndexes(url, only, { concurrently: false });
      log(
        `search indexes, round ${round}/${ROUNDS}: writer alone with ${variant.name}, ${schedule.seconds} s at ${schedule.rate} calls/s…`,
      );
      const samples = await run();
      variant.samples.push(...samples);
      variant.p99ByRound.push(summariseTail(samples).p99Ms);
    }
  }
  const summary = (v: (typeof variants)[number]) => ({ ...summariseTail(v.samples), p99ByRound: v.p99ByRound });
  const without = summary(variants[0]!);
  const each: SearchIndexCost["each"] = variants.slice(1).map((variant) => {
    const latency = summary(variant);
    const spec = variant.spec!;
    return {
      index: spec.indexName,
      tool: spec.tool,
      label: spec.label,
      path: spec.path,
      latency,
      p99Ratio: without.p99Ms > 0 ? Math.round((latency.p99Ms / without.p99Ms) * 100) / 100 : 0,
    };
  });
  await ensureSearchIndexes(url, config, { concurrently: false });
  return { rounds: ROUNDS, without, each };
}
