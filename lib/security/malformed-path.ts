/**
 * Whether a request path, as it arrived (still percent-encoded), cannot be decoded: a `%` not
 * followed by two hex digits (`%ZZ`, `%uD800`), or escapes whose bytes are not UTF-8 — overlong
 * forms (`%C0%AE`), encoded surrogates (`%ED%A0%80`), truncated sequences. Next.js would throw
 * decoding such a path and answer a bare 500 without our headers; the proxy answers first.
 * Pure (no Node or Next APIs): it runs in the proxy.
 */
export function isMalformedPath(rawPath: string): boolean {
  const bytes: number[] = [];
  for (let i = 0; i < rawPath.length; i++) {
    const char = rawPath.charCodeAt(i);
    if (char !== 0x25 /* % */) {
      if (bytes.length > 0 && !isUtf8(bytes.splice(0))) return true;
      continue;
    }
    const hex = rawPath.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return true;
    bytes.push(Number.parseInt(hex, 16));
    i += 2;
  }
  return bytes.length > 0 && !isUtf8(bytes);
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A run of escaped bytes decodes as UTF-8 (the fatal decoder refuses overlong forms and surrogates). */
function isUtf8(bytes: number[]): boolean {
  try {
    STRICT_UTF8.decode(new Uint8Array(bytes));
    return true;
  } catch {
    return false;
  }
}
