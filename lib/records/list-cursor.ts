/**
 * The records list's keyset cursor: a position (created_at, key) in newest-first order,
 * carried in the URL as one opaque base64url token. created_at keeps PostgreSQL's full
 * microsecond precision — a JavaScript Date would round it to milliseconds and make paging
 * skip or repeat rows that share a millisecond.
 *
 * Pure and isomorphic: the server builds cursors, the client parser only validates them.
 */
import { parseExactTime } from "@/lib/format/exact-time";
import { decodeBase64Url, encodeBase64Url } from "@/lib/text/base64url";

export type RecordsCursor = {
  /** UTC, always six fraction digits: 2026-11-29T17:26:25.801030Z */
  createdAt: string;
  key: string;
};

// Keys are 64 hex in the reference writer; other writers may write other text, so any
// printable text up to 512 characters is a valid position.
const KEY = /^[^\u0000-\u001f\u007f]{1,512}$/;
const MAX_TOKEN_LENGTH = 1200;

export function encodeCursor(cursor: RecordsCursor): string {
  return encodeBase64Url(`${cursor.createdAt}|${cursor.key}`);
}

/** The position a token names, or null when it is not a cursor this console issued. */
export function decodeCursor(token: string): RecordsCursor | null {
  const text = decodeBase64Url(token, MAX_TOKEN_LENGTH);
  if (text === null) return null;
  const bar = text.indexOf("|");
  if (bar < 0) return null;
  const createdAt = parseExactTime(text.slice(0, bar));
  const key = text.slice(bar + 1);
  if (createdAt === null || !KEY.test(key)) return null;
  return { createdAt, key };
}
