/**
 * THE reading of an instant typed by a person or sent by a program — the records and audit
 * filters, the key explainer's time, the CLI's `--at` — so one spelling means one instant
 * everywhere. Pure and isomorphic (the records filter parses URL state in the browser too).
 *
 * Accepted:
 * - a date, `2026-11-29`: that day's UTC midnight;
 * - a date-time with a zone, `2026-11-29T14:05Z`, `2026-11-29T14:05:00.123456+01:00`
 *   (seconds and up to nine fraction digits optional; JavaScript keeps milliseconds);
 * - where the caller allows it, unix seconds: `1772366400`, `1772366400.5`.
 *
 * THE rule for a time without a zone (`2026-11-29T14:05`): refused, never guessed. It would be
 * read in the zone of whoever parses it — the server, the browser, the CLI's machine — and those
 * differ. A form whose input has no zone (datetime-local) adds the one it means before sending.
 * A date or time that does not exist as written (2026-02-30, 24:00) is refused too: Date would
 * roll it over into another instant.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const UNIX_SECONDS = /^-?\d{1,12}(?:\.\d+)?$/;

export type InstantOptions = { unixSeconds?: boolean };

/** The instant the text names under the rules above, or null. The text is taken as it is (callers trim). */
export function parseInstant(text: string, options: InstantOptions = {}): Date | null {
  if (options.unixSeconds && UNIX_SECONDS.test(text)) return new Date(Number(text) * 1000);
  const dateOnly = DATE_ONLY.exec(text);
  const parts = dateOnly ?? DATE_TIME.exec(text);
  if (!parts) return null;
  const [, y, mo, d] = parts;
  const date = new Date(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(date.getTime())) return null;
  const calendar = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (
    calendar.getUTCFullYear() !== Number(y) ||
    calendar.getUTCMonth() !== Number(mo) - 1 ||
    calendar.getUTCDate() !== Number(d)
  )
    return null;
  return date;
}

/** What the parser accepts, in words with examples, for every message that refuses an instant. */
export function expectedInstant(options: InstantOptions = {}): string {
  const forms = "an ISO 8601 date (2026-11-29) or date-time with a zone (2026-11-29T14:05:00Z)";
  return options.unixSeconds ? `${forms}, or unix seconds` : forms;
}
