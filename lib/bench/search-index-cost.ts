import "server-only";
import { searchSpecs } from "@/lib/config/search-specs";
import type { IdemConfig } from "@/lib/config/schema";
import { ensureSearchIndexes } from "@/lib/search/search-indexes";
import { summariseTail, type TailLatencySummary } from "./percentiles";
import type { WriterChild } from "./writer-child";

/** The writer's claim → complete with no searchable-field index, then with each one alone (issue #28 §1). */
export type SearchIndexCost = {
  without: TailLatencySummary;
  each: { index: string; tool: string; label: string; path: string; latency: TailLatencySummary; p99Ratio: number }[];
};

/**
 * What each expression index of `idem db index` costs the writers: the same open-loop schedule,
 * the writer alone (no console load), first with none of them, then with each built by itself.
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
    return summariseTail((await writer.run(schedule)).fromSchedule);
  };
  await ensureSearchIndexes(url, { tools: {} }, { concurrently: false });
  log(`search indexes: writer alone with none, ${schedule.seconds} s at ${schedule.rate} calls/s…`);
  const without = await run();
  const each: SearchIndexCost["each"] = [];
  for (const spec of searchSpecs(config)) {
    const only = { tools: { [spec.tool]: { search: { [spec.label]: spec.path } } } };
    await ensureSearchIndexes(url, only, { concurrently: false });
    log(`search indexes: writer alone with ${spec.indexName} only…`);
    const latency = await run();
    each.push({
      index: spec.indexName,
      tool: spec.tool,
      label: spec.label,
      path: spec.path,
      latency,
      p99Ratio: without.p99Ms > 0 ? Math.round((latency.p99Ms / without.p99Ms) * 100) / 100 : 0,
    });
  }
  await ensureSearchIndexes(url, config, { concurrently: false });
  return { without, each };
}
