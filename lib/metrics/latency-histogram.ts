/**
 * Time to complete (updated_at − created_at) as a fixed log-scale histogram. Fixed buckets are
 * what make percentiles mergeable: an hour's counts add to another hour's, a tenant's to
 * another's, so p50/p95 of any window and selection come from summed rollup rows — a stored
 * p95 per hour could not be combined at all.
 *
 * Bucket 0 holds durations under 1 ms (and negative ones, from writer clock skew); bucket k ≥ 1
 * holds [2^((k−1)/4), 2^(k/4)) ms, four buckets per doubling. A percentile is reported as its
 * bucket's geometric midpoint 2^((k−½)/4), so it is within 2^(1/8) − 1 ≈ 9.05% of the exact
 * value, at any magnitude (a 48 h duration is bucket 111). The rank is exact: the reported
 * bucket is the one holding the nearest-rank percentile (PostgreSQL's percentile_disc).
 */
export const BUCKETS_PER_DOUBLING = 4;

/** The SQL twin of `latencyBucket`, over a duration in milliseconds (float8). */
export function latencyBucketSql(msExpression: string): string {
  return `(CASE WHEN ${msExpression} < 1 THEN 0 ELSE floor(ln(${msExpression}) / ln(2) * ${BUCKETS_PER_DOUBLING})::int + 1 END)`;
}

export function latencyBucket(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.floor((Math.log(ms) / Math.LN2) * BUCKETS_PER_DOUBLING) + 1;
}

/** What a bucket reports: its geometric midpoint, in whole milliseconds. */
export function bucketValueMs(bucket: number): number {
  if (bucket <= 0) return 0;
  return Math.round(2 ** ((bucket - 0.5) / BUCKETS_PER_DOUBLING));
}

/** bucket → completions in it. */
export type LatencyHistogram = Map<number, number>;

export function addToHistogram(histogram: LatencyHistogram, bucket: number, completions: number): void {
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + completions);
}

/**
 * The nearest-rank percentile (the value at rank ⌈p·n⌉ of n sorted durations), as its bucket's
 * value; null when nothing completed with a known duration.
 */
export function histogramPercentileMs(histogram: LatencyHistogram, p: number): number | null {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket) ?? 0;
    if (seen >= rank) return bucketValueMs(bucket);
  }
  return null;
}

/** A histogram as stored in the rollup rows' `latency` column: {"bucket": completions}. */
export type StoredHistogram = Record<string, number>;

/** Adds a stored histogram (from a rollup row) into a histogram. */
export function addStoredHistogram(histogram: LatencyHistogram, stored: StoredHistogram): void {
  for (const [bucket, completions] of Object.entries(stored))
    addToHistogram(histogram, Number(bucket), Number(completions));
}
