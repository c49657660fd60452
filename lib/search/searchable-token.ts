/**
 * What may be a searchable id in pasted text (a charge, receipt, tracking or order id), for the
 * lookup's extractor: 4–200 characters of [A-Za-z0-9_.:-] holding a digit (so words are not
 * searched), and not a 12-hex ref or a 64-hex key (those are found as refs and keys).
 */
export function looksSearchable(token: string): boolean {
  if (token.length < 4 || token.length > 200) return false;
  if (!/^[A-Za-z0-9_.:-]+$/.test(token) || !/\d/.test(token)) return false;
  return !/^(?:[0-9a-f]{12}|[0-9a-f]{64})$/i.test(token);
}

/** The candidate tokens of a text, in order of first appearance, trailing punctuation trimmed. */
export function searchableCandidates(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(/[^A-Za-z0-9_.:-]+/)) {
    const token = raw.replace(/[.:-]+$/, "").replace(/^[.:-]+/, "");
    if (looksSearchable(token)) seen.add(token);
  }
  return [...seen];
}
