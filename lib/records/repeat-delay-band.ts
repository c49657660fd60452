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

export function repeatDelayBand(delayMs: number, windowMs: number): RepeatDelayBand {
  if (delayMs < 1_000) return "at_once";
  if (delayMs < 20_000) return "seconds";
  if (delayMs < 90_000) return "around_timeout";
  return delayMs < windowMs * 0.8 ? "minutes" : "near_window_end";
}
