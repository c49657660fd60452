/**
 * An instant at PostgreSQL's full microsecond precision, as text: `2026-11-29T17:26:25.801030Z`
 * (UTC, always six fraction digits). Cursors and row versions carry this text, never a
 * JavaScript Date: a Date keeps milliseconds only, so paging would skip or repeat rows that share
 * a millisecond and a compare-and-set would never match a writer's now().
 *
 * Pure and isomorphic: the browser validates records cursors with the same parser.
 */

/** The to_char format that writes an exact time (applied to the instant in UTC). */
export const EXACT_TIME_FORMAT = `YYYY-MM-DD"T"HH24:MI:SS.US"Z"`;

/**
 * The SQL expression reading a timestamptz column as exact time text. `column` is a column name
 * or expression written in code — never input: it goes into the SQL as it is.
 */
export function exactTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', '${EXACT_TIME_FORMAT}')`;
}

/**
 * The SQL expression writing a timestamptz column as `Date.toISOString()` does (milliseconds, cut
 * as pg's Date parsing cuts them): for output that reads no Date back, such as an export's cells.
 */
export function isoMillisSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The text itself when it is an exact time (a real calendar date and clock time), else null. */
export function parseExactTime(text: string): string | null {
  if (!EXACT_TIME.test(text)) return null;
  // The pattern lets impossible dates and times through (2026-02-30, 24:61): Date would roll them over.
  const ms = Date.parse(text);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== text.slice(0, 19)) return null;
  return text;
}
