import { CARD_CANDIDATE, isCardNumber } from "@/lib/privacy/redact";

/** Pasted text beyond this is refused with a message: the sentence holding the ref is enough. */
export const MAX_LOOKUP_TEXT_CHARS = 10_000;
/** Refs, keys and ids looked up from one paste (a whole support thread fits; a log dump does not). */
export const MAX_TOKENS_PER_LOOKUP = 50;

/**
 * What a paste names, in the order it says it: a full key, a ref, or a word that may be a
 * searchable id (a receipt, a tracking number). Masked value classes are never looked up.
 */
export type LookupToken = { kind: "key" | "ref" | "word"; value: string };

export type LookupTokens = {
  /** The first MAX_TOKENS_PER_LOOKUP distinct tokens, in order of appearance. */
  tokens: LookupToken[];
  /** Distinct tokens the text held, kept or not. */
  total: number;
  /** Values that look like an e-mail address or a card number: counted, never searched or echoed. */
  masked: { emails: number; cardNumbers: number };
};

export type LookupTokensResult = ({ ok: true } & LookupTokens) | { ok: false; message: string };

// A hex run counts only when it is exactly 12 or 64 characters long and stands alone: letters,
// digits and "_" may not touch it (a 40-hex commit id is not a ref, nor is the tail of ch_… one).
// "ref3f9a1c2b7d4e", "ref_3f9a1c2b7d4e": a ref glued to its own label still counts.
const HEX_RUN = /(?<![0-9a-z_])(?:ref_?)?([0-9a-f]+)(?![0-9a-z_])/gi;
// The last group of a UUID is 12 hex characters; a request id in an error message is not a ref.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
// An id a processor or carrier hands out: ch_3Mq…, 1Z999AA10123456784, ORD-10023. Trailing
// sentence punctuation is not part of it.
const WORD = /(?<![A-Za-z0-9_.:-])[A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9]/g;
// Dates, times and amounts carry digits but name no call.
const NOT_AN_ID = /^(?:\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?|\d{1,2}:\d{2}(?::\d{2})?|\d{1,5}|\d+\.\d+)$/i;

/** True for a word worth looking up as a searchable id: 6 to 200 characters holding a digit. */
export function isIdLike(word: string): boolean {
  return word.length >= 6 && word.length <= 200 && /\d/.test(word) && !NOT_AN_ID.test(word);
}

/** The refs, keys and id-like words in whatever was pasted, in order, each once. */
export function extractLookupTokens(text: string): LookupTokensResult {
  if (text.length > MAX_LOOKUP_TEXT_CHARS) {
    return {
      ok: false,
      message: `That text is ${text.length.toLocaleString("en")} characters long; paste at most ${MAX_LOOKUP_TEXT_CHARS.toLocaleString("en")}. The sentence with the ref in it is enough.`,
    };
  }
  const masked = { emails: 0, cardNumbers: 0 };
  // Blank what is never looked up, keeping every other character where it was so order holds.
  let rest = text.replace(UUID, blank).replace(EMAIL, (email) => {
    masked.emails++;
    return blank(email);
  });
  rest = rest.replace(CARD_CANDIDATE, (candidate) => {
    if (!isCardNumber(candidate.replace(/[ -]/g, ""))) return candidate;
    masked.cardNumbers++;
    return blank(candidate);
  });

  const found: Array<LookupToken & { at: number }> = [];
  const hexSpans: Array<[number, number]> = [];
  for (const match of rest.matchAll(HEX_RUN)) {
    const run = (match[1] ?? "").toLowerCase();
    if (run.length !== 12 && run.length !== 64) continue;
    found.push({ kind: run.length === 64 ? "key" : "ref", value: run, at: match.index });
    hexSpans.push([match.index, match.index + match[0].length]);
  }
  for (const match of rest.matchAll(WORD)) {
    const inHex = hexSpans.some(([from, to]) => match.index < to && match.index + match[0].length > from);
    if (!inHex && isIdLike(match[0])) found.push({ kind: "word", value: match[0], at: match.index });
  }
  found.sort((a, b) => a.at - b.at);

  const seen = new Set<string>();
  const tokens: LookupToken[] = [];
  for (const { kind, value } of found) {
    if (seen.has(value)) continue;
    seen.add(value);
    if (tokens.length < MAX_TOKENS_PER_LOOKUP) tokens.push({ kind, value });
  }
  return { ok: true, tokens, total: seen.size, masked };
}

function blank(text: string): string {
  return " ".repeat(text.length);
}
