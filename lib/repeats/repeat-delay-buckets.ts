/**
 * The fixed edges (seconds) of the repeat-delay histogram `idem_repeat_delay_seconds`: the band edges
 * (1, 20, 90 s) and the default window's (15 min) among them, so a reader of the histogram can sum
 * buckets into bands. repeat_delay_hourly.buckets holds one count per edge (delay < edge and ≥ the
 * previous one) and a last one for +Inf. Changing the list changes what stored rows mean: append only.
 */
export const REPEAT_DELAY_EDGES_S = [1, 5, 20, 60, 90, 300, 600, 900, 1800, 3600] as const;

/** The SQL array of per-edge counts over a delay in ms (fixed text; the aggregate of one group). */
export function repeatDelayBucketsSql(delayMs: string): string {
  const parts = REPEAT_DELAY_EDGES_S.map((edge, i) => {
    const below = `${delayMs} < ${edge * 1000}`;
    const previous = REPEAT_DELAY_EDGES_S[i - 1];
    return previous === undefined
      ? `count(*) FILTER (WHERE ${below})`
      : `count(*) FILTER (WHERE ${delayMs} >= ${previous * 1000} AND ${below})`;
  });
  parts.push(`count(*) FILTER (WHERE ${delayMs} >= ${REPEAT_DELAY_EDGES_S.at(-1)! * 1000})`);
  return `ARRAY[${parts.join(", ")}]::int8[]`;
}

/** Adds stored bucket counts into a running sum (both one per edge plus +Inf). */
export function addBuckets(sum: number[], stored: readonly (bigint | number)[]): void {
  stored.forEach((n, i) => (sum[i] = (sum[i] ?? 0) + Number(n)));
}

export function emptyBuckets(): number[] {
  return new Array<number>(REPEAT_DELAY_EDGES_S.length + 1).fill(0);
}

/**
 * The delay range holding the median repeat (nearest rank), as its bucket's edges in seconds: exact
 * as a range, never a guessed point. null when there are no repeats.
 */
export function medianRange(buckets: readonly number[]): { fromS: number; toS: number | null } | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(total / 2);
  let seen = 0;
  for (const [i, n] of buckets.entries()) {
    seen += n;
    if (seen >= rank)
      return { fromS: i === 0 ? 0 : REPEAT_DELAY_EDGES_S[i - 1]!, toS: REPEAT_DELAY_EDGES_S[i] ?? null };
  }
  return null;
}

/** The SQL sum of stored bucket arrays, position by position, in one pass (fixed text; an aggregate over `column`). */
export function bucketSumsSql(column: string): string {
  const positions = Array.from({ length: REPEAT_DELAY_EDGES_S.length + 1 }, (_, i) => i + 1);
  return `ARRAY[${positions.map((i) => `sum(${column}[${i}])::float8`).join(", ")}]`;
}
