/** Pasted text beyond this is refused with a message: the sentence holding the ref is enough. */
export const MAX_LOOKUP_TEXT_CHARS = 10_000;
/** Refs and keys looked up from one paste; a text with more hex runs is probably not an error message. */
export const MAX_REFS_PER_LOOKUP = 20;

export type ExtractedRefs = {
  /** Full 64-hex keys, lowercased, in order of appearance. */
  keys: string[];
  /** 12-hex refs, lowercased: the ones written as such, then those of the keys. */
  refs: string[];
  /** More candidates were found than MAX_REFS_PER_LOOKUP; only the first were kept. */
  truncated: boolean;
};

export type ExtractRefsResult = ({ ok: true } & ExtractedRefs) | { ok: false; message: string };

// A hex run counts only when it is exactly 12 or 64 characters long and stands alone: quotes,
// backticks, brackets, punctuation or whitespace may surround it; letters, digits and "_" may not
// (a 40-hex commit id is not a ref with 28 characters stuck to it, nor is the tail of ch_… an id).
const HEX_RUN = /(?<![0-9a-z_])[0-9a-f]+(?![0-9a-z_])/g;
// The last group of a UUID is 12 hex characters; a request id in an error message is not a ref.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
// "ref3f9a1c2b7d4e", "ref_3f9a1c2b7d4e": a ref glued to its own label still counts.
const GLUED_REF = /\bref_?(?=[0-9a-f]{12}(?![0-9a-z_]))/g;

/** Finds the refs and keys in whatever was pasted: a whole error message, a ref, a key, quoted or not. */
export function extractRefs(text: string): ExtractRefsResult {
  if (text.length > MAX_LOOKUP_TEXT_CHARS) {
    return {
      ok: false,
      message: `That text is ${text.length.toLocaleString("en")} characters long; paste at most ${MAX_LOOKUP_TEXT_CHARS.toLocaleString("en")}. The sentence with the ref in it is enough.`,
    };
  }
  const lower = text.toLowerCase().replace(UUID, " ").replace(GLUED_REF, "ref ");
  const keys: string[] = [];
  const refs: string[] = [];
  let candidates = 0;
  for (const [run] of lower.matchAll(HEX_RUN)) {
    if (run.length === 64 && !keys.includes(run)) {
      candidates++;
      if (keys.length + refs.length < MAX_REFS_PER_LOOKUP) keys.push(run);
    } else if (run.length === 12 && !refs.includes(run)) {
      candidates++;
      if (keys.length + refs.length < MAX_REFS_PER_LOOKUP) refs.push(run);
    }
  }
  for (const key of keys) {
    // refOf(key), written out: derive-key pulls node:crypto, and the lookup form runs this in the browser.
    const ref = key.slice(0, 12);
    if (!refs.includes(ref)) refs.push(ref);
  }
  return { ok: true, keys, refs, truncated: candidates > MAX_REFS_PER_LOOKUP };
}
