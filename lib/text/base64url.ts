/**
 * Text ⇄ an opaque URL-safe token (base64url, RFC 4648 §5, no padding), for cursors carried in
 * URLs. Pure and isomorphic (btoa/atob and TextEncoder exist in browsers and Node alike).
 */
export function encodeBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The text a token encodes, or null when it is not one: characters outside the base64url
 * alphabet, longer than `maxLength`, a length base64 cannot have, or bytes that are not UTF-8.
 */
export function decodeBase64Url(token: string, maxLength: number): string | null {
  if (token.length === 0 || token.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  try {
    const binary = atob(token.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}
