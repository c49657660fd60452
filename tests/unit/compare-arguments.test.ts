import { describe, expect, it } from "vitest";
import { deriveKey } from "idem-guard";
import { CANNOT_CHECK_TOOL, compareArguments, type HashedRecord } from "@/lib/records/compare-arguments";

// The hand-checked vector of tests/unit/derive-key.test.ts (python3 hashlib.sha256 of the material):
// acme|user_42|charge_card|{"amount_cents":24000,"card":"c_71"}|1969296
const VECTOR_KEY = "3ee70cf2887316521387af129388be54fa510dba3674e93b7387992a6b19bb50";
const record: HashedRecord = {
  key: VECTOR_KEY,
  tenant: "acme",
  subject: "user_42",
  tool: "charge_card",
  createdAt: new Date("2026-03-01T12:03:20Z"), // inside bucket 1969296 (12:00–12:15)
};
const ARGS = '{"card": "c_71", "amount_cents": 24000}';
const CHANGED = '{"card": "c_71", "amount_cents": 24001}';

function compare(r: HashedRecord, args: string, reference: string | null = null, windowSeconds = 900) {
  const result = compareArguments(r, { args, windowSeconds, reference });
  if (!result.ok) throw new Error(result.error.message);
  return result.comparison;
}

describe("compareArguments", () => {
  it("says yes for the reference vector's arguments, in the record's own bucket, with its bounds", () => {
    const c = compare(record, ARGS);
    expect(c.verdict).toBe("match");
    if (c.verdict === "cannot_check") throw new Error("unreachable");
    expect(c.match).toMatchObject({
      scheme: "python-json",
      position: "same",
      bucket: "1969296",
      startsAt: "2026-03-01T12:00:00.000Z",
      endsAt: "2026-03-01T12:15:00.000Z",
      key: VECTOR_KEY,
    });
    expect(c.buckets.map((b) => [b.position, b.bucket])).toEqual([
      ["same", "1969296"],
      ["previous", "1969295"],
      ["next", "1969297"],
    ]);
    expect(c.canonical.find((f) => f.scheme === "python-json")).toEqual({
      scheme: "python-json",
      text: '{"amount_cents":24000,"card":"c_71"}',
      bytes: 36,
    });
  });

  it("finds the call in the previous bucket when the database's created_at fell just after the writer's bucket ended", () => {
    const late = { ...record, createdAt: new Date("2026-03-01T12:15:00.400Z") };
    const c = compare(late, ARGS);
    expect(c.verdict === "match" && c.match?.position).toBe("previous");
    const early = { ...record, createdAt: new Date("2026-03-01T11:59:59.900Z") };
    const e = compare(early, ARGS);
    expect(e.verdict === "match" && e.match?.position).toBe("next");
  });

  it("says no for one field changed, and without a reference names no byte (a hash cannot say where inputs differ)", () => {
    const c = compare(record, CHANGED);
    expect(c.verdict).toBe("no_match");
    if (c.verdict === "cannot_check") throw new Error("unreachable");
    expect(c.match).toBeNull();
    expect(c.candidates).toHaveLength(6);
    expect(c.candidates.every((k) => !k.matches)).toBe(true);
    expect(c.reference).toBeNull();
  });

  it("names the first differing canonical byte against a reference that derives the key", () => {
    const c = compare(record, CHANGED, ARGS);
    if (c.verdict === "cannot_check") throw new Error("unreachable");
    expect(c.reference).toMatchObject({ proven: true, scheme: "python-json", position: "same" });
    if (!c.reference?.proven) throw new Error("unproven");
    // {"amount_cents":2400 is 20 bytes; byte 20 is the last digit.
    expect(c.reference.diff).toMatchObject({ equal: false, offset: 20, leftBytes: 36, rightBytes: 36 });
    expect(c.reference.diff.left).toMatchObject({ before: '{"amount_cents":2400', hex: "30 2c 22 63 61 72 64 22" });
    expect(c.reference.diff.right?.hex.startsWith("31")).toBe(true);
  });

  it("refuses to diff against a reference that does not derive the key", () => {
    const c = compare(record, CHANGED, '{"amount_cents": 1}');
    expect(c.verdict === "no_match" && c.reference).toEqual({ proven: false });
  });

  it("matches under the JCS scheme when that is what the writer hashed (1.0 is 1 there, 1.0 in Python's form)", () => {
    const args = '{"amount": 1.0}';
    const at = new Date("2026-03-01T12:03:20Z");
    const jcs = deriveKey({
      tenant: "acme",
      subject: "user_42",
      tool: "charge_card",
      argumentsJson: args,
      at,
      scheme: "jcs",
    });
    const c = compare({ ...record, key: jcs.key }, args);
    expect(c.verdict === "match" && c.match).toMatchObject({ scheme: "jcs", position: "same" });
    if (c.verdict === "cannot_check") throw new Error("unreachable");
    expect(c.canonical.map((f) => f.text)).toEqual(['{"amount":1.0}', '{"amount":1}']);
  });

  it("hashes an unrecorded subject as None, as a writer without one does", () => {
    const none = deriveKey({
      tenant: "acme",
      subject: null,
      tool: "charge_card",
      argumentsJson: ARGS,
      at: record.createdAt,
    });
    expect(compare({ ...record, subject: null, key: none.key }, ARGS).verdict).toBe("match");
  });

  it("takes the window: the same arguments under another window are another key", () => {
    expect(compare(record, ARGS, null, 60).verdict).toBe("no_match");
  });

  it("cannot check a record whose writer did not record the tool", () => {
    expect(compare({ ...record, tool: null }, ARGS)).toEqual({ verdict: "cannot_check", reason: CANNOT_CHECK_TOOL });
  });

  it("names the field whose text is not JSON", () => {
    expect(compareArguments(record, { args: "{amount: 1", windowSeconds: 900, reference: null })).toMatchObject({
      ok: false,
      error: { field: "args", message: expect.stringMatching(/^args: not valid JSON — /) },
    });
    expect(compareArguments(record, { args: ARGS, windowSeconds: 900, reference: "[1," })).toMatchObject({
      ok: false,
      error: { field: "reference" },
    });
  });
});
