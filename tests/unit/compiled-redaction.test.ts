import { describe, expect, it } from "vitest";
import { compileRedaction, compileRedactionWithPaths } from "@/lib/privacy/compiled-redaction";
import { REDACTED, redactJson, type Redaction } from "@/lib/privacy/redact";

// A small seeded generator: the same documents every run, so a failure names its seed.
function random(seed: number) {
  let state = Math.imul(seed, 0x9e3779b1) >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  for (let i = 0; i < 8; i++) next(); // small seeds start with small states
  return { next, pick };
}

// "0", "~" and "@f()" are written by JSONPath's path strings in forms of their own.
const KEYS = [
  "card",
  "email",
  "a",
  "b",
  "items",
  "id",
  "0",
  "length",
  "__proto__",
  "card_number",
  "~",
  "@f()",
] as const;
const SCALARS = [
  "ch_1",
  "ann@shop.example",
  "paid by 4242 4242 4242 4242 today",
  "4111-1111-1111-1112",
  4242424242424242,
  4111111111111112,
  12,
  true,
  null,
  "",
  REDACTED,
  "=SUM(A1)",
] as const;
const PATHS = [
  "$..card",
  "$..email",
  "$.a.b",
  "$.a[*]",
  "$..*",
  "$.*.email",
  "$..a.b",
  "$['b']",
  "$.items..id",
  "$..card_number",
  "$",
  // Not compiled (index, length, union): the whole redaction falls back to JSONPath.
  "$.a[0]",
  "$..length",
  "$['a','b']",
] as const;

function documentOf(r: ReturnType<typeof random>, depth: number): unknown {
  if (depth === 0 || r.next() < 0.35) return r.pick(SCALARS);
  if (r.next() < 0.3) return Array.from({ length: Math.floor(r.next() * 4) }, () => documentOf(r, depth - 1));
  const node: Record<string, unknown> = {};
  for (let i = Math.floor(r.next() * 4); i > 0; i--)
    Object.defineProperty(node, r.pick(KEYS), {
      value: documentOf(r, depth - 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return node;
}

/** Seed by seed, a random redaction and a document to mask under it. */
function* randomCases(count: number): Generator<{ seed: number; redaction: Redaction; document: unknown }> {
  for (let seed = 1; seed <= count; seed++) {
    const r = random(seed);
    const redaction: Redaction = {
      paths: Array.from({ length: Math.floor(r.next() * 4) }, () => r.pick(PATHS)),
      values: { email: r.next() < 0.7, cardNumbers: r.next() < 0.7 },
    };
    yield { seed, redaction, document: documentOf(r, 5) };
  }
}

describe("compileRedaction", () => {
  it("masks exactly what redactJson masks, and reports the same paths, over 3,000 random documents and redactions", () => {
    let reported = 0;
    for (const { seed, redaction, document } of randomCases(3_000)) {
      const before = JSON.stringify(document);
      const expected = redactJson(document, redaction);
      expect({ seed, redaction, value: compileRedaction(redaction)(document) }).toEqual({
        seed,
        redaction,
        value: expected.value,
      });
      expect({ seed, redaction, ...compileRedactionWithPaths(redaction)(document) }).toEqual({
        seed,
        redaction,
        ...expected,
      });
      expect(JSON.stringify(document), `seed ${seed} changed its input`).toBe(before);
      reported += expected.redactedPaths.length;
    }
    // The documents do mask things: the comparison is not of empty lists.
    expect(reported).toBeGreaterThan(1_000);
  });

  it("reports a field inside a masked one when an earlier path, or the same one, found it first", () => {
    const document = { shipping_address: { email: "ann@shop.example", line: "1 Main St" }, a: { a: 1 } };
    const masks = { email: false, cardNumbers: false };
    for (const paths of [["$..email", "$..shipping_address"], ["$..shipping_address", "$..email"], ["$..a"]]) {
      const redaction = { paths, values: masks };
      expect(compileRedactionWithPaths(redaction)(document), paths.join(" ")).toEqual(redactJson(document, redaction));
    }
    expect(
      compileRedactionWithPaths({ paths: ["$..email", "$..shipping_address"], values: masks })(document),
    ).toMatchObject({ redactedPaths: ["$['shipping_address']", "$['shipping_address']['email']"] });
  });

  it("masks a nested field by path and an address by value in one walk", () => {
    const mask = compileRedaction({
      paths: ["$..card", "$.customer.name"],
      values: { email: true, cardNumbers: true },
    });
    expect(
      mask({ card: { last4: "4242" }, customer: { name: "Ann", note: "ann@shop.example" }, items: [{ card: 1 }] }),
    ).toEqual({ card: REDACTED, customer: { name: REDACTED, note: REDACTED }, items: [{ card: REDACTED }] });
  });

  it("keeps a __proto__ field a field", () => {
    const document = JSON.parse('{"__proto__": {"email": "x"}, "a": 1}') as object;
    const masked = compileRedaction({ paths: ["$..email"], values: { email: false, cardNumbers: false } })(document);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe('{"__proto__":{"email":"[redacted]"},"a":1}');
  });
});
