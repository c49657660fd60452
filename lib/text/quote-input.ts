const MAX_QUOTED = 80;

/**
 * Someone's input, quoted for an error message: JSON-escaped (so control characters and RTL
 * overrides show as escapes) and cut short, so a 2 MB value is not echoed back whole.
 */
export function quoteInput(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= MAX_QUOTED) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_QUOTED))}… (${text.length.toLocaleString("en")} characters)`;
}
