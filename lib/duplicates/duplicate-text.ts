/**
 * The words the duplicates page and API use about a duplicate that got through: the fix, the gap,
 * the bucket edge. Pure (client components format with it too).
 */

/**
 * What to change so the operation cannot run twice. Across a bucket edge the retry got the next
 * bucket's key; in one bucket the keys differ for another reason (a writer's clock, a business key).
 */
export function duplicateFix(entry: { tool: string; bucketEdge: string | null }): string {
  if (entry.bucketEdge !== null)
    return `Use a business key such as the order id for ${entry.tool}, or have its writer check the previous bucket's key before claiming.`;
  return `Both claims fell in one bucket, so the keys differ for another reason: check that every writer of ${entry.tool} derives the key the same way (clock skew between writers, a business key that changed between the calls).`;
}

/** "30 s", "1.5 s", "250 ms", "4 min 10 s". */
export function formatGap(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) {
    const seconds = Math.round(ms / 100) / 10;
    return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  }
  const seconds = Math.round(ms / 1_000);
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest === 0 ? "" : ` ${rest} s`}`;
}

/** "14:45:00 UTC"; with the date in front when it is not `today`'s UTC day. */
export function formatUtcTime(iso: string, today?: string): string {
  const time = `${iso.slice(11, 19)} UTC`;
  return today === undefined || iso.slice(0, 10) === today.slice(0, 10) ? time : `${iso.slice(0, 10)} ${time}`;
}
