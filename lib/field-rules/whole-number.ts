/**
 * A whole number from `min` to `max`, typed by a person (the CLI's --limit, --rows, …, and the bench
 * scripts' arguments): digits only, so "1.5", "-1", "1e3" and "" are refused with the range named.
 */
export function parseWholeNumber(
  value: string,
  min: number,
  max: number,
): { ok: true; value: number } | { ok: false; message: string } {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    return { ok: false, message: `expected a whole number from ${min} to ${max.toLocaleString("en")}.` };
  return { ok: true, value: n };
}
