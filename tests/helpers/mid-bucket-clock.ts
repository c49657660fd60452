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

/** How long to wait, at `nowMs`, so that the next `marginMs` fall inside one bucket: 0 when they already do. */
export function waitToLeaveBucketEdge(nowMs: number, marginMs = 30_000): number {
  const bucketMs = DEFAULT_WINDOW_SECONDS * 1000;
  const left = (Math.floor(nowMs / bucketMs) + 1) * bucketMs - nowMs;
  return left < marginMs ? left + 1_000 : 0;
}

/**
 * For a writer whose clock a test cannot set (another process on the wall clock): a call and its repeats
 * must fall in one bucket, so an edge closer than 30 s is waited out first.
 */
export async function awayFromBucketEdge(): Promise<void> {
  const wait = waitToLeaveBucketEdge(Date.now());
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
