/**
 * Where two canonical argument texts first differ, byte by byte: the bytes a writer hashes. Shared
 * by the key explainer (two pasted texts) and the record's argument check (pasted text against
 * arguments proven to derive the record's key). Pure: no database, no server code.
 */

export type ByteWindow = { before: string; from: string; hex: string };

/** Where two canonical forms first differ, as UTF-8 bytes: the bytes hashed. */
export type CanonicalDiff = {
  equal: boolean;
  leftBytes: number;
  rightBytes: number;
  /** First differing byte offset; equal to the shorter length when one is a prefix of the other. */
  offset: number | null;
  left: ByteWindow | null;
  right: ByteWindow | null;
};

const CONTEXT_BYTES = 24;
const SHOWN_BYTES = 8;

export function diffCanonical(left: string, right: string): CanonicalDiff {
  const a = Buffer.from(left, "utf8");
  const b = Buffer.from(right, "utf8");
  const equal = a.equals(b);
  if (equal) return { equal, leftBytes: a.length, rightBytes: b.length, offset: null, left: null, right: null };
  let offset = 0;
  while (offset < a.length && offset < b.length && a[offset] === b[offset]) offset++;
  return {
    equal,
    leftBytes: a.length,
    rightBytes: b.length,
    offset,
    left: byteWindow(a, offset),
    right: byteWindow(b, offset),
  };
}

function byteWindow(bytes: Buffer, offset: number): ByteWindow {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const from = bytes.subarray(offset, offset + CONTEXT_BYTES);
  return {
    before: decoder.decode(bytes.subarray(Math.max(0, offset - CONTEXT_BYTES), offset)),
    from: decoder.decode(from),
    hex: [...bytes.subarray(offset, offset + SHOWN_BYTES)].map((byte) => byte.toString(16).padStart(2, "0")).join(" "),
  };
}
