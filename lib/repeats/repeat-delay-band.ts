/**
 * Where a repeat comes from, read off its delay after the first call (docs/architecture.md#keys-and-buckets):
 * bands named for the sources a repeat has. The edges are the reference text's: a 30 s processor timeout, a
 * 15-minute window (or the tool's own).
 */
export const REPEAT_DELAY_BANDS = [
  { band: "at_once", label: "at once", hint: "under 1 s: a concurrent double-submit or a host firing twice" },
  { band: "seconds", label: "seconds", hint: "1–20 s: a transport or SDK retry" },
  { band: "around_timeout", label: "around the timeout", hint: "20–90 s: a retry after a timeout" },
  { band: "minutes", label: "minutes", hint: "a model asking again, or a second host" },
  { band: "near_window_end", label: "near the window's end", hint: "the last fifth of the window" },
] as const;

export type RepeatDelayBand = (typeof REPEAT_DELAY_BANDS)[number]["band"];
export const REPEAT_DELAY_BAND_NAMES = REPEAT_DELAY_BANDS.map((b) => b.band) as [RepeatDelayBand, ...RepeatDelayBand[]];

/** The fixed edges (ms) and the window's share where "near the window's end" begins; the SQL twin reads the same. */
const AT_ONCE_MS = 1_000;
const SECONDS_MS = 20_000;
const AROUND_TIMEOUT_MS = 90_000;
const NEAR_END_SHARE = 0.8;

export function repeatDelayBand(delayMs: number, windowMs: number): RepeatDelayBand {
  if (delayMs < AT_ONCE_MS) return "at_once";
  if (delayMs < SECONDS_MS) return "seconds";
  if (delayMs < AROUND_TIMEOUT_MS) return "around_timeout";
  return delayMs < windowMs * NEAR_END_SHARE ? "minutes" : "near_window_end";
}

/** `repeatDelayBand` in SQL, over a delay in ms and a window in seconds (both float8 expressions, fixed text). */
export function repeatDelayBandSql(delayMs: string, windowSeconds: string): string {
  return `(CASE WHEN ${delayMs} < ${AT_ONCE_MS} THEN 'at_once' WHEN ${delayMs} < ${SECONDS_MS} THEN 'seconds'
    WHEN ${delayMs} < ${AROUND_TIMEOUT_MS} THEN 'around_timeout'
    WHEN ${delayMs} < ${windowSeconds} * 1000 * ${NEAR_END_SHARE} THEN 'minutes' ELSE 'near_window_end' END)`;
}
