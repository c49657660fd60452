import { describe, expect, it } from "vitest";
import { parseArgumentsText } from "@/lib/annotations/verification-arguments-text";

// The Verify… dialog's arguments: bad text is a sentence before anything is sent.
describe("the Verify… dialog's arguments text", () => {
  it("takes a JSON object, {} included", () => {
    expect(parseArgumentsText('{"card": "c_4242", "amount_cents": 500}')).toEqual({
      ok: true,
      value: { card: "c_4242", amount_cents: 500 },
    });
    expect(parseArgumentsText(" {} ")).toEqual({ ok: true, value: {} });
  });
  it.each([
    ['{"card": ', /^The arguments are not valid JSON: .+\. Nothing was called\.$/],
    ["[1, 2]", /must be a JSON object.*this is an array\. Nothing was called\.$/],
    ["null", /this is null\./],
    ['"c_4242"', /this is a string\./],
    ["42", /this is a number\./],
    ["   ", /^Give the arguments as a JSON object/],
  ])("refuses %j, saying why", (text, message) => {
    const parsed = parseArgumentsText(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });
});
