import type { RepeatDistribution } from "./repeat-figures";

/** A delay in seconds as people say it: "45 s", "5 min", "1 h". */
export function formatDelaySeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** The median as the range that holds it: "median 1–5 s", "median over 1 h". */
export function medianText(median: RepeatDistribution["median"]): string {
  if (median === null) return "no repeats";
  if (median.toS === null) return `median over ${formatDelaySeconds(median.fromS)}`;
  if (median.fromS === 0) return `median under ${formatDelaySeconds(median.toS)}`;
  return `median ${formatDelaySeconds(median.fromS)}–${formatDelaySeconds(median.toS)}`;
}
