import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalPythonJson, MAX_DEPTH, pythonFloatRepr } from "idem-guard";

// Expected values below were produced by Python 3.11's
// json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) and written in by hand.
const CASES: [string, string, string][] = [
  ["a charge's arguments", '{"card": "c_71", "amount_cents": 24000}', '{"amount_cents":24000,"card":"c_71"}'],
  ["a float stays a float", '{"b": 1.0, "a": 1}', '{"a":1,"b":1.0}'],
  [
    "float spellings and Python's repr thresholds",
    "[1E2, 1e16, 1e-7, 1e-5, 0.0001, 1e15, 123456789012345678.0, 1.5e300, 0.1, 2.5E+3]",
    "[100.0,1e+16,1e-07,1e-05,0.0001,1000000000000000.0,1.2345678901234568e+17,1.5e+300,0.1,2500.0]",
  ],
  ["zeros: -0 is an int 0, -0.0 keeps its sign", "[-0, -0.0, 0.0, 0e5, -0e-5]", "[0,-0.0,0.0,0.0,-0.0]"],
  [
    "extremes, overflow and Python's non-finite literals",
    "[5e-324, 1.7976931348623157e308, 1e400, -1e400, 2e-324, NaN, Infinity, -Infinity]",
    "[5e-324,1.7976931348623157e+308,Infinity,-Infinity,0.0,NaN,Infinity,-Infinity]",
  ],
  [
    "integers stay exact at any size; the same digits as a float round",
    "[18446744073709551616, -340282366920938463463374607431768211457, 9007199254740993, 9007199254740993.0]",
    "[18446744073709551616,-340282366920938463463374607431768211457,9007199254740993,9007199254740992.0]",
  ],
  [
    "ensure_ascii escapes, surrogates, DEL and short escapes",
    '"caf\\u00e9 \u00e9 \\ud83d\\ude00 \u{1F600} \\ud800 \\uDC00 \u007f \\/ \\"\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f"',
    '"caf\\u00e9 \\u00e9 \\ud83d\\ude00 \\ud83d\\ude00 \\ud800 \\udc00 \\u007f / \\"\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f"',
  ],
  [
    "keys sort by code point: an astral key after U+FB33 (JS sort would put it before)",
    '{"\ufb33": 1, "\u{1F600}": 2, "\ue000": 3, "a": 4, "A": 5, "": 6}',
    '{"":6,"A":5,"a":4,"\\ue000":3,"\\ufb33":1,"\\ud83d\\ude00":2}',
  ],
  [
    "a repeated key keeps the last value, however it is spelled",
    '{"a": 1, "a": 2, "\\u0061": 3, "b": {"x": [], "x": {}}}',
    '{"a":3,"b":{"x":{}}}',
  ],
  [
    "whitespace anywhere Python allows it",
    ' \t\n\r{ "nested" : [ [ [ ] ] , { } , [ {"z":null,"y":true,"x":false} ] ] } \r\n',
    '{"nested":[[[]],{},[{"x":false,"y":true,"z":null}]]}',
  ],
];

const ERRORS: [string, string][] = [
  ["", "Expecting value: line 1 column 1 (char 0)"],
  ["[1,]", "Expecting value: line 1 column 4 (char 3)"],
  ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
  ['{"a":1,}', "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"],
  ['"abc', "Unterminated string starting at: line 1 column 1 (char 0)"],
  ['"a\u0001"', "Invalid control character at: line 1 column 3 (char 2)"],
  ['"\\x"', "Invalid \\escape: line 1 column 2 (char 1)"],
  ['"\\u12g4"', "Invalid \\uXXXX escape: line 1 column 3 (char 2)"],
  ['"\\ud83d', "Invalid \\uXXXX escape: line 1 column 3 (char 2)"],
  ["[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"],
  ["01", "Extra data: line 1 column 2 (char 1)"],
  ["1.", "Extra data: line 1 column 2 (char 1)"],
  ["+1", "Expecting value: line 1 column 1 (char 0)"],
  ["-NaN", "Expecting value: line 1 column 1 (char 0)"],
  ["\n\n  [tru]", "Expecting value: line 3 column 4 (char 5)"],
  ['{"a":1', "Expecting ',' delimiter: line 1 column 7 (char 6)"],
  ["\ufeff{}", "Unexpected UTF-8 BOM: line 1 column 1 (char 0)"],
];

describe("canonicalPythonJson", () => {
  it.each(CASES)("%s", (_name, text, expected) => {
    expect(canonicalPythonJson(text)).toBe(expected);
  });

  it("key order does not change the result, whitespace and number spelling of ints neither", () => {
    const a = canonicalPythonJson('{"amount_cents": 24000, "card": "c_71"}');
    expect(canonicalPythonJson('{"card":"c_71","amount_cents":24000}')).toBe(a);
    expect(canonicalPythonJson('{"card":"c_71","amount_cents":24000.0}')).not.toBe(a); // a float is another value to Python
  });

  it.each(ERRORS)("rejects %j with Python's message and position", (text, message) => {
    expect(() => canonicalPythonJson(text)).toThrow(CanonicalJsonError);
    expect(() => canonicalPythonJson(text)).toThrow(message);
  });

  it("refuses integers Python 3.11 refuses (more than 4300 digits), not floats that long", () => {
    expect(canonicalPythonJson("1".repeat(4300))).toBe("1".repeat(4300));
    expect(() => canonicalPythonJson(`-${"1".repeat(4301)}`)).toThrow(/more than 4300 digits.*char 0/);
    expect(canonicalPythonJson(`${"1".repeat(4301)}.0`)).toBe("Infinity");
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels instead of overflowing the stack`, () => {
    expect(canonicalPythonJson("[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH))).toBe(
      "[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH),
    );
    const deep = "[".repeat(MAX_DEPTH + 1) + "]".repeat(MAX_DEPTH + 1);
    expect(() => canonicalPythonJson(deep)).toThrow(
      `Nesting deeper than ${MAX_DEPTH} levels: line 1 column ${MAX_DEPTH + 1}`,
    );
  });

  it("keeps an escaped high surrogate before a raw low one as two code points, as Python does", () => {
    // Sorted as code points: 0xd83d 0xde00 comes before U+E000; the joined U+1F600 would come after.
    expect(canonicalPythonJson('{"\ue000":1,"\\ud83d\ude00":2}')).toBe('{"\\ud83d\\ude00":2,"\\ue000":1}');
    expect(canonicalPythonJson('{"\ue000":1,"\\ud83d\\ude00":2}')).toBe('{"\\ue000":1,"\\ud83d\\ude00":2}');
  });

  it.each([
    [1, "1.0"],
    [0.1 + 0.2, "0.30000000000000004"],
    [1e16, "1e+16"],
    [9999999999999998, "9999999999999998.0"],
    [1e-4, "0.0001"],
    [1.5e-5, "1.5e-05"],
    [-1e100, "-1e+100"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991.0"],
    [Number.MIN_VALUE, "5e-324"],
    [2.2250738585072014e-308, "2.2250738585072014e-308"],
  ])("pythonFloatRepr(%d) is %s", (x, expected) => {
    expect(pythonFloatRepr(x)).toBe(expected);
  });
});

// ---- The cross-check: several hundred generated texts through one python3 process. ----

/** mulberry32: a small seeded PRNG, so every run checks the same texts. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}

const CHARS = [
  ..."abcXYZ019 _-.:/",
  '"',
  "\\",
  "\u0000",
  "\u0001",
  "\u0008",
  "\u0009",
  "\u000a",
  "\u000c",
  "\u000d",
  "\u001f",
  "\u007f",
  "\u0080",
  "\u00e9",
  "\u00ff",
  "\u0100",
  "\u4e2d",
  "\ue000",
  "\ufb33",
  "\uffff",
  "\u{1F600}",
  "\u{1F4A9}",
  "\u{10FFFF}",
  "\u{10000}",
] as const;

type Rng = ReturnType<typeof prng>;

/** One character as JSON string text: raw where JSON allows it, or one of the escapes for it. */
function charText(r: Rng, ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const hex = (unit: number) => {
    const h = unit.toString(16).padStart(4, "0");
    return `\\u${r.next() < 0.5 ? h : h.toUpperCase()}`;
  };
  const escaped = cp > 0xffff ? [...ch.split("").map((u) => hex(u.charCodeAt(0)))].join("") : hex(cp);
  const short: Record<string, string> = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
  };
  const mustEscape = cp < 0x20 || ch === '"' || ch === "\\";
  const options = [escaped, ...(short[ch] ? [short[ch]] : []), ...(mustEscape ? [] : [ch])];
  return r.pick(options);
}

function stringText(r: Rng, maxLength: number): string {
  let out = '"';
  const n = r.int(maxLength + 1);
  for (let i = 0; i < n; i++) {
    const roll = r.next();
    if (roll < 0.03)
      out += "\\ud800"; // lone high surrogate, escaped
    else if (roll < 0.05)
      out += "\\uDFFF"; // lone low surrogate, escaped
    else if (roll < 0.06)
      out += "\\ud83d\ude00"; // escaped high then a raw low: two code points to Python
    else out += charText(r, r.pick(CHARS));
  }
  return `${out}"`;
}

function digits(r: Rng, n: number, leadingNonZero = true): string {
  let out = leadingNonZero ? String(1 + r.int(9)) : "";
  while (out.length < n) out += String(r.int(10));
  return out;
}

const FIXED_NUMBERS = [
  "0",
  "-0",
  "1",
  "-1",
  "1.0",
  "-0.0",
  "0.0",
  "1E2",
  "1e2",
  "1E+2",
  "1e-7",
  "1e-5",
  "1e-4",
  "0.0001",
  "1e16",
  "1e15",
  "9999999999999999",
  "9999999999999999.0",
  "5e-324",
  "2e-324",
  "4.9406564584124654e-324",
  "1.7976931348623157e308",
  "1.7976931348623159e308",
  "1e400",
  "-1e400",
  "2.2250738585072011e-308",
  "0.1",
  "0.30000000000000004",
  "100.0",
  "18446744073709551616",
  "-18446744073709551617",
  "123456789012345678901234567890",
  "9007199254740993",
  "NaN",
  "Infinity",
  "-Infinity",
  "0e0",
  "-0E-0",
  "1.5e300",
  "0.000001",
  "0.0000001",
  "123.456e-2",
] as const;

function numberText(r: Rng): string {
  const roll = r.next();
  if (roll < 0.2) return r.pick(FIXED_NUMBERS);
  const sign = r.next() < 0.3 ? "-" : "";
  if (roll < 0.4) return sign + (r.next() < 0.5 ? String(r.int(1000)) : digits(r, 1 + r.int(60))); // ints, some beyond 2^64
  // Floats in many magnitudes and spellings: fraction and/or exponent, 1 to 25 significant digits.
  const whole = r.next() < 0.3 ? "0" : digits(r, 1 + r.int(8));
  const fraction = r.next() < 0.7 ? `.${digits(r, 1 + r.int(17), false)}` : "";
  const exponent =
    fraction === "" || r.next() < 0.6 ? `${r.pick(["e", "E"])}${r.pick(["", "+", "-"])}${r.int(330)}` : "";
  return sign + whole + fraction + exponent;
}

function ws(r: Rng): string {
  return r.next() < 0.6 ? "" : Array.from({ length: 1 + r.int(3) }, () => r.pick([" ", "\t", "\n", "\r"])).join("");
}

const KEY_POOL = [
  "a",
  "b",
  "A",
  "amount_cents",
  "card",
  "",
  "\u00e9",
  "\u{1F600}",
  "\ufb33",
  "\ue000",
  "a\u0000",
  "\u{10FFFF}",
  "Z",
];

function valueText(r: Rng, depth: number): string {
  const roll = r.next();
  if (depth >= 4 || roll < 0.45) {
    const leaf = r.next();
    if (leaf < 0.45) return numberText(r);
    if (leaf < 0.85) return stringText(r, 8);
    return r.pick(["null", "true", "false"]);
  }
  if (roll < 0.7) {
    const n = r.int(5);
    return `[${ws(r)}${Array.from({ length: n }, () => valueText(r, depth + 1)).join(`${ws(r)},${ws(r)}`)}${ws(r)}]`;
  }
  return objectText(r, depth);
}

function objectText(r: Rng, depth: number): string {
  const members: string[] = [];
  const n = r.int(7);
  for (let i = 0; i < n; i++) {
    // Pool keys (re-spelled with random escapes) make duplicates and close sort neighbours common.
    const key = r.next() < 0.6 ? `"${[...r.pick(KEY_POOL)].map((ch) => charText(r, ch)).join("")}"` : stringText(r, 5);
    members.push(`${ws(r)}${key}${ws(r)}:${ws(r)}${valueText(r, depth + 1)}${ws(r)}`);
  }
  return `{${members.join(",")}}`;
}

function generatedTexts(): string[] {
  const r = prng(0x1de3);
  const texts: string[] = [];
  for (let i = 0; i < 400; i++) texts.push(ws(r) + objectText(r, 0) + ws(r));
  for (let i = 0; i < 100; i++) texts.push(valueText(r, 1));
  // Truncations and corruptions: Python must reject exactly the ones we reject.
  for (let i = 0; i < 100; i++) {
    const base = texts[r.int(400)] ?? "";
    const cut = r.int(base.length + 1);
    texts.push(
      r.next() < 0.5
        ? base.slice(0, cut)
        : base.slice(0, cut) + r.pick(["]", "}", ",", ":", '"', "\\", "x", "\u0002", "-", "."]) + base.slice(cut),
    );
  }
  return texts;
}

const PYTHON = `
import json, sys
texts = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = []
for t in texts:
    try:
        out.append(json.dumps(json.loads(t), sort_keys=True, separators=(",", ":")))
    except (ValueError, RecursionError) as e:
        out.append("!error " + type(e).__name__)
sys.stdout.write(json.dumps(out))
`;

/** Runs a python3 script on a JSON value; null when python3 is absent (outside CI). */
function runPython(script: string, input: unknown): unknown {
  const result = spawnSync("python3", ["-c", script], {
    input: JSON.stringify(input),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT" && process.env.CI !== "true")
    return null;
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe("canonicalPythonJson against python3", () => {
  it("matches json.dumps(json.loads(t), sort_keys=True, separators=(',', ':')) byte for byte on 600 generated texts", (ctx) => {
    const texts = generatedTexts();
    const expected = runPython(PYTHON, texts);
    if (expected === null) return ctx.skip("python3 is not installed (CI requires it)");
    expect(Array.isArray(expected) && expected.length === texts.length).toBe(true);

    let compared = 0;
    let rejected = 0;
    const mismatches: string[] = [];
    texts.forEach((text, i) => {
      const python = (expected as string[])[i] ?? "";
      let ours: string;
      try {
        ours = canonicalPythonJson(text);
      } catch (error) {
        if (!(error instanceof CanonicalJsonError)) throw error;
        ours = "!error";
      }
      compared++;
      if (python.startsWith("!error")) rejected++;
      if ((python.startsWith("!error") ? "!error" : python) !== ours)
        mismatches.push(`${JSON.stringify(text)}\n  python: ${python}\n  ours:   ${ours}`);
    });
    expect(mismatches.slice(0, 5).join("\n")).toBe("");
    expect(compared).toBe(600);
    // The generator must exercise both sides: mostly valid texts, and a fair number Python rejects.
    expect(rejected).toBeGreaterThan(40);
    expect(rejected).toBeLessThan(150);
  });
});
