/**
 * The records list's keyset cursor: a position (created_at, key) in newest-first order,
 * carried in the URL as one opaque base64url token. created_at keeps PostgreSQL's full
 * microsecond precision — a JavaScript Date would round it to milliseconds and make paging
 * skip or repeat rows that share a millisecond.
 *
 * Pure and isomorphic: the server builds cursors, the client parser only validates them.
 */
export type RecordsCursor = {
  /** UTC, always six fraction digits: 2026-11-29T17:26:25.801030Z */
  createdAt: string;
  key: string;
};

const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
// Keys are 64 hex in the reference writer; other writers may write other text, so any
// printable text up to 512 characters is a valid position.
const KEY = /^[^\u0000-\u001f\u007f]{1,512}$/;
const TOKEN = /^[A-Za-z0-9_-]{1,1200}$/;

export function encodeCursor(cursor: RecordsCursor): string {
  const bytes = new TextEncoder().encode(`${cursor.createdAt}|${cursor.key}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The position a token names, or null when it is not a cursor this console issued. */
export function decodeCursor(token: string): RecordsCursor | null {
  if (!TOKEN.test(token)) return null;
  let text: string;
  try {
    const binary = atob(token.replace(/-/g, "+").replace(/_/g, "/"));
    text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
  const bar = text.indexOf("|");
  if (bar < 0) return null;
  const createdAt = text.slice(0, bar);
  const key = text.slice(bar + 1);
  if (!CREATED_AT.test(createdAt) || !KEY.test(key)) return null;
  // Rejects impossible calendar dates (2026-02-30) that the pattern lets through.
  const ms = Date.parse(createdAt);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== createdAt.slice(0, 19)) return null;
  return { createdAt, key };
}
