import { isConsoleApplicationName } from "@/lib/db/application-name";
import type { SoakSample } from "./soak-sample";

export type FlatJudgement = {
  what: "console RSS" | "console connections";
  firstThirdMax: number | null;
  lastThirdMax: number | null;
  bound: number | null;
  held: boolean;
  detail: string;
};

/** RSS may not end above this many times its early peak: a leak grows without end, a warm cache does not. */
export const RSS_GROWTH_BOUND = 1.2;
/** Connections likewise, plus two: the counts are small, and one more backend at a sampling instant is noise. */
export const CONNECTION_SLACK = 2;
export const MIN_READINGS = 18;

/**
 * "Flat": the last third of the samples' maximum is at most RSS_GROWTH_BOUND × the first third's
 * (for connections, × RSS_GROWTH_BOUND + CONNECTION_SLACK). Samples whose value could not be read
 * (the database down during a restart) are left out. Fewer than MIN_READINGS readings (3 min at
 * 10 s) are a warm-up, not a trend: they are reported, not judged.
 */
export function judgeFlat(samples: SoakSample[]): FlatJudgement[] {
  const rss = samples.map((s) => s.rssMiB).filter((v): v is number => v !== null);
  const connections = samples
    .map((s) => (s.connections ? consoleConnections(s.connections) : null))
    .filter((v): v is number => v !== null);
  return [
    judge("console RSS", rss, (first) => first * RSS_GROWTH_BOUND, "MiB"),
    judge("console connections", connections, (first) => first * RSS_GROWTH_BOUND + CONNECTION_SLACK, ""),
  ];
}

/** The console's backends: `idem-console` and `idem-console:export` (lib/db/application-name.ts). */
export function consoleConnections(byName: Record<string, number>): number {
  return Object.entries(byName)
    .filter(([name]) => isConsoleApplicationName(name))
    .reduce((sum, [, n]) => sum + n, 0);
}

function judge(
  what: FlatJudgement["what"],
  values: number[],
  boundOf: (firstThirdMax: number) => number,
  unit: string,
): FlatJudgement {
  if (values.length < MIN_READINGS)
    return {
      what,
      firstThirdMax: null,
      lastThirdMax: null,
      bound: null,
      held: true,
      detail: `${values.length} readings (${values.join(", ")}): fewer than ${MIN_READINGS}, a warm-up, not judged`,
    };
  const third = Math.floor(values.length / 3);
  const first = Math.max(...values.slice(0, third));
  const last = Math.max(...values.slice(values.length - third));
  const bound = Math.round(boundOf(first) * 10) / 10;
  const held = last <= bound;
  const u = unit ? ` ${unit}` : "";
  return {
    what,
    firstThirdMax: first,
    lastThirdMax: last,
    bound,
    held,
    detail: `first third's max ${first}${u}, last third's max ${last}${u} (bound ${bound}${u})`,
  };
}
