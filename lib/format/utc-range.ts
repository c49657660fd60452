/**
 * A window between two ISO instants, in UTC to the second: `2026-11-30 20:38:58 – 2026-12-01 20:38:58 UTC`.
 * The end drops its date only when both ends fall on the same UTC day; otherwise a 24 h window would read
 * `20:38:58 – 20:38:58`, which looks empty. Pure: the tools page and its test share it.
 */
export function formatUtcRange(startIso: string, endIso: string): string {
  const start = new Date(startIso).toISOString();
  const end = new Date(endIso).toISOString();
  const sameDay = start.slice(0, 10) === end.slice(0, 10);
  const stamp = (iso: string) => iso.slice(0, 19).replace("T", " ");
  return `${stamp(start)} – ${sameDay ? end.slice(11, 19) : stamp(end)} UTC`;
}
