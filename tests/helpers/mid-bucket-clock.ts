import { DEFAULT_WINDOW_SECONDS } from "idem-guard";

/**
 * A guard clock for tests whose repeat must derive its first call's key. The default key holds a 15-minute
 * bucket, and a pair that straddled a bucket's end on the wall clock would be two keys (CI saw a second side
 * effect, twice, in two files). This clock runs from the middle of the bucket it was made in, at the wall
 * clock's pace.
 */
export function midBucketClock(): () => Date {
  const startedAt = Date.now();
  const bucketMs = DEFAULT_WINDOW_SECONDS * 1000;
  const bucketMiddle = Math.floor(startedAt / bucketMs) * bucketMs + bucketMs / 2;
  return () => new Date(bucketMiddle + (Date.now() - startedAt));
}
