import { describe, expect, it } from "vitest";
import { extractRefs, MAX_LOOKUP_TEXT_CHARS, MAX_REFS_PER_LOOKUP } from "@/lib/records/extract-refs";
import { diffCanonical, parseAt, parseExplainParams } from "@/lib/records/explain-key";

const KEY = "3f9a1c2b7d4e8a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b";

function found(text: string) {
  const result = extractRefs(text);
  if (!result.ok) throw new Error(result.message);
  return { keys: result.keys, refs: result.refs };
}

describe("extractRefs: whatever support pastes", () => {
  it("finds the ref in the guard's in-flight message", () => {
    const message =
      "A charge with these exact details is already in progress (ref 3f9a1c2b7d4e). Do not submit it again; call get_charge_status with this ref.";
    expect(found(message)).toEqual({ keys: [], refs: ["3f9a1c2b7d4e"] });
  });

  it("finds the ref in the guard's timeout message", () => {
    const message =
      "The processor did not answer within 30 s. The charge may or may not have been taken; ref 0a1b2c3d4e5f is recorded. Call get_charge_status with this ref before doing anything else. Do not retry this call.";
    expect(found(message)).toEqual({ keys: [], refs: ["0a1b2c3d4e5f"] });
  });

  it.each([
    ['"3f9a1c2b7d4e"'],
    ["'3f9a1c2b7d4e'"],
    ["`3f9a1c2b7d4e`"],
    ["(3f9a1c2b7d4e)"],
    ["  \n\t3f9a1c2b7d4e \n"],
    ["ref: 3f9a1c2b7d4e."],
    ["ref3f9a1c2b7d4e"],
    ["ref_3f9a1c2b7d4e"],
    ["«3f9a1c2b7d4e»"],
  ])("tolerates what surrounds it: %j", (text) => {
    expect(found(text)).toEqual({ keys: [], refs: ["3f9a1c2b7d4e"] });
  });

  it("lowercases an uppercase ref or key", () => {
    expect(found("REF 3F9A1C2B7D4E")).toEqual({ keys: [], refs: ["3f9a1c2b7d4e"] });
    expect(found(KEY.toUpperCase())).toEqual({ keys: [KEY], refs: [KEY.slice(0, 12)] });
  });

  it("returns two refs in order, once each", () => {
    expect(found("first ref 111111aaaaaa, then ref 222222bbbbbb, and again 111111aaaaaa")).toEqual({
      keys: [],
      refs: ["111111aaaaaa", "222222bbbbbb"],
    });
  });

  it("takes a full key as a key, and counts it as its ref too", () => {
    expect(found(`key="${KEY}"`)).toEqual({ keys: [KEY], refs: [KEY.slice(0, 12)] });
    // The ref written out beside its own key is not listed twice.
    expect(found(`ref ${KEY.slice(0, 12)} key ${KEY}`)).toEqual({ keys: [KEY], refs: [KEY.slice(0, 12)] });
  });

  it("ignores hex runs of other lengths, UUIDs and words", () => {
    expect(
      found(
        "commit 3f9a1c2b7d4e8a6b5c4d3e2f1a0b9c8d7e6f5a4b, request 123e4567-e89b-12d3-a456-426614174000, deadbeef, cafe",
      ),
    ).toEqual({ keys: [], refs: [] });
    expect(found("3f9a1c2b7d4ex 3f9a1c2b7d4 ch_3f9a1c2b7d4e")).toEqual({ keys: [], refs: [] });
    expect(found("")).toEqual({ keys: [], refs: [] });
  });

  it("refuses oversized text with a message that says the limit", () => {
    const result = extractRefs(`ref 3f9a1c2b7d4e ${"x".repeat(MAX_LOOKUP_TEXT_CHARS)}`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toMatch(/at most 10,000/);
    expect(extractRefs("x".repeat(MAX_LOOKUP_TEXT_CHARS)).ok).toBe(true);
  });

  it("looks up at most MAX_REFS_PER_LOOKUP candidates and says it cut the rest", () => {
    const many = Array.from({ length: MAX_REFS_PER_LOOKUP + 5 }, (_, i) => i.toString(16).padStart(12, "a")).join(" ");
    const result = extractRefs(many);
    expect(result.ok && result.refs.length).toBe(MAX_REFS_PER_LOOKUP);
    expect(result.ok && result.truncated).toBe(true);
  });
});

describe("key explainer input and byte diff", () => {
  const now = new Date("2026-03-01T12:00:00Z");

  it("two orderings of one object canonicalise to the same bytes", () => {
    const parsed = parseExplainParams(
      { tenant: "t", tool: "charge_card", args: '{"amount_cents": 24000, "card": "c_71"}' },
      now,
    );
    expect(parsed.ok).toBe(true);
    expect(diffCanonical('{"amount_cents":24000,"card":"c_71"}', '{"amount_cents":24000,"card":"c_71"}')).toMatchObject(
      { equal: true, offset: null },
    );
  });

  it("points at the first differing byte, with the bytes around it", () => {
    const diff = diffCanonical('{"amount_cents":24000,"card":"c_71"}', '{"amount_cents":24000.0,"card":"c_71"}');
    expect(diff).toMatchObject({ equal: false, offset: 21, leftBytes: 36, rightBytes: 38 });
    expect(diff.left).toMatchObject({ before: '{"amount_cents":24000', hex: "2c 22 63 61 72 64 22 3a" });
    expect(diff.right?.from.startsWith(".0,")).toBe(true);
  });

  it("counts bytes, not characters, past non-ASCII text", () => {
    const diff = diffCanonical('{"n":"é","a":1}', '{"n":"é","a":2}');
    expect(diff.offset).toBe(14); // character 13, but é is two bytes in UTF-8
  });

  it("reports a bad window, bad time and bad JSON by field, together", () => {
    const parsed = parseExplainParams({ tenant: "t", tool: "x", args: "{bad", window: "0", at: "yesterday" }, now);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => e.field).sort()).toEqual(["args", "at", "window"]);
    expect(parsed.errors.find((e) => e.field === "window")?.message).toMatch(/^window: expected whole seconds/);
  });

  it("reads windows as seconds or durations, and times with a zone or as unix seconds", () => {
    const parsed = parseExplainParams(
      { tenant: "t", tool: "x", args: "{}", window: "15m", at: "2026-03-01T12:00Z" },
      now,
    );
    expect(parsed.ok && parsed.input.windowSeconds).toBe(900);
    expect(parsed.ok && parsed.input.at.toISOString()).toBe("2026-03-01T12:00:00.000Z");
    expect(parseAt("1772366400")?.toISOString()).toBe("2026-03-01T12:00:00.000Z");
    expect(parseAt("2026-03-01T12:00:00+01:00")?.toISOString()).toBe("2026-03-01T11:00:00.000Z");
    expect(parseAt("March 3")).toBeNull();
  });

  it("refuses a time without a zone, saying so, rather than guessing one", () => {
    const parsed = parseExplainParams({ tenant: "t", tool: "x", args: "{}", at: "2026-03-01T12:00" }, now);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.find((e) => e.field === "at")?.message).toMatch(
      /^at: expected .*with a zone.*; a time without a zone is refused$/,
    );
    expect(parseAt("2026-03-01T12:00")).toBeNull();
  });
});
