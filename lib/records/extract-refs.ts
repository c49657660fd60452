import { extractLookupTokens, MAX_LOOKUP_TEXT_CHARS, MAX_TOKENS_PER_LOOKUP } from "@/lib/records/lookup-tokens";

export { MAX_LOOKUP_TEXT_CHARS };
/** Refs and keys looked up from one paste. */
export const MAX_REFS_PER_LOOKUP = MAX_TOKENS_PER_LOOKUP;

export type ExtractedRefs = {
  /** Full 64-hex keys, lowercased, in order of appearance. */
  keys: string[];
  /** 12-hex refs, lowercased: the ones written as such, then those of the keys. */
  refs: string[];
  /** More candidates were found than MAX_REFS_PER_LOOKUP; only the first were kept. */
  truncated: boolean;
};

export type ExtractRefsResult = ({ ok: true } & ExtractedRefs) | { ok: false; message: string };

/** The refs and keys alone (ids and words left out): what the lookup form keeps of an over-long paste. */
export function extractRefs(text: string): ExtractRefsResult {
  const found = extractLookupTokens(text);
  if (!found.ok) return found;
  const hex = found.tokens.filter((token) => token.kind !== "word");
  const keys = hex.filter((token) => token.kind === "key").map((token) => token.value);
  const refs = hex.filter((token) => token.kind === "ref").map((token) => token.value);
  for (const key of keys) {
    // refOf(key), written out: derive-key pulls node:crypto, and the lookup form runs this in the browser.
    const ref = key.slice(0, 12);
    if (!refs.includes(ref)) refs.push(ref);
  }
  const hexTotal = found.total - (found.tokens.length - hex.length);
  return { ok: true, keys, refs, truncated: hexTotal > hex.length };
}
