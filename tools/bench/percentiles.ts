export type LatencySummary = { n: number; p50Ms: number; p95Ms: number; meanMs: number };
/** The tail too, for latencies where one stall matters (the writers' cost of the console). */
export type TailLatencySummary = LatencySummary & { p99Ms: number; maxMs: number };

/** Nearest-rank percentiles of samples in milliseconds, rounded to 0.001 ms. */
export function summarise(samples: number[]): LatencySummary {
  const { n, p50Ms, p95Ms, meanMs } = summariseTail(samples);
  return { n, p50Ms, p95Ms, meanMs };
}

export function summariseTail(samples: number[]): TailLatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  const mean = sorted.reduce((sum, s) => sum + s, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50Ms: round(at(50)),
    p95Ms: round(at(95)),
    p99Ms: round(at(99)),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
    meanMs: round(mean),
  };
}
