import { describe, expect, it } from "vitest";
import { extractLookupTokens, isIdLike, MAX_TOKENS_PER_LOOKUP } from "@/lib/records/lookup-tokens";

function tokens(text: string) {
  const result = extractLookupTokens(text);
  if (!result.ok) throw new Error(result.message);
  return result;
}

describe("extractLookupTokens: a whole support thread", () => {
  it("keeps the customer's refs in the order they wrote them, with the ids beside them", () => {
    const thread =
      "First time: payment timed out, ref 3484c25554eb. Second attempt: 'already in progress (ref 79b076409bb8)'. My receipt says ch_3Mq8xYz2eZvKYlo2C0a1b2c3. Am I charged twice?";
    expect(tokens(thread).tokens).toEqual([
      { kind: "ref", value: "3484c25554eb" },
      { kind: "ref", value: "79b076409bb8" },
      { kind: "word", value: "ch_3Mq8xYz2eZvKYlo2C0a1b2c3" },
    ]);
  });

  it("keeps a key before a ref when the key comes first", () => {
    const key = "ab".repeat(32);
    expect(tokens(`key ${key} then ref 111111aaaaaa`).tokens.map((t) => t.kind)).toEqual(["key", "ref"]);
  });

  it("does not take words, dates, times or amounts for ids", () => {
    expect(tokens("On 2026-12-02 at 06:54:50 I paid 24,000 cents, 240.00 USD, order v2").tokens).toEqual([]);
    expect(isIdLike("1Z999AA10123456784")).toBe(true);
    expect(isIdLike("ORD-10023")).toBe(true);
    expect(isIdLike("payment")).toBe(false);
  });

  it("never looks up an e-mail address or a card number, and counts them", () => {
    const result = tokens("I am bob.smith42@example.com, card 4242 4242 4242 4242, ref 3484c25554eb");
    expect(result.tokens).toEqual([{ kind: "ref", value: "3484c25554eb" }]);
    expect(result.masked).toEqual({ emails: 1, cardNumbers: 1 });
  });

  it("reads a key whose digits hold a Luhn-valid run as a key, not a card number", () => {
    const key = "ab4242424242424242cd3f9a1c2b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4";
    const result = tokens(`already in progress, key ${key}`);
    expect(result.tokens).toEqual([{ kind: "key", value: key }]);
    expect(result.masked).toEqual({ emails: 0, cardNumbers: 0 });
  });

  it("keeps a 13-19 digit id that fails the card checksum", () => {
    expect(tokens("tracking 4242424242424241").tokens).toEqual([{ kind: "word", value: "4242424242424241" }]);
  });

  it("looks up at most MAX_TOKENS_PER_LOOKUP and counts the rest", () => {
    const many = Array.from({ length: MAX_TOKENS_PER_LOOKUP + 7 }, (_, i) => i.toString(16).padStart(12, "a"));
    const result = tokens(`${many.join(" ")} ${many[0]}`);
    expect(result.tokens).toHaveLength(MAX_TOKENS_PER_LOOKUP);
    expect(result.tokens[0]).toEqual({ kind: "ref", value: many[0] });
    expect(result.total).toBe(MAX_TOKENS_PER_LOOKUP + 7);
  });
});
