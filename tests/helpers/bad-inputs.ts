import { expect } from "vitest";

/**
 * The bad-input catalogue the sweeps feed to every input: malformed, oversized, unicode edge
 * cases, NUL bytes and injection strings. Each entry has a label for the failure message.
 */
export const BAD_STRINGS: readonly (readonly [label: string, value: string])[] = [
  ["empty", ""],
  ["spaces", "   "],
  ["percent", "%"],
  ["half json", '{"a": '],
  ["number overflow", "1e309"],
  ["negative", "-1"],
  ["NaN", "NaN"],
  ["long digits", "9".repeat(400)],
  ["2 MB", "a".repeat(2 * 1024 * 1024)],
  ["astral", "𝌆😀🀄"],
  ["RTL override", "\u202Egnp.exe"],
  ["combining", "e\u0301\u0302\u0303\u0304\u0305\u0306"],
  ["lone high surrogate", "\uD800"],
  ["lone low surrogate", "x\uDC00y"],
  ["NUL", "\u0000"],
  ["NUL inside", "acme\u0000admin"],
  ["control chars", "\u0001\u0007\u001b[31m"],
  ["SQL quote", "' OR '1'='1"],
  ["SQL stacked", "x'; DROP TABLE idempotency; --"],
  ["SQL comment", "*/ UNION SELECT * FROM api_token --"],
  ["HTML script", '<script>alert(1)</script>'],
  ["HTML attribute", '"><img src=x onerror=alert(1)>'],
  ["path traversal", "../../../../etc/passwd"],
  ["encoded traversal", "..%2F..%2Fetc%2Fpasswd"],
  ["JSONPath all", "$..*"],
  ["JSONPath filter eval", "$..[?(@.constructor.constructor('return process')().exit())]"],
  ["header CRLF", "x\r\nSet-Cookie: pwned=1"],
  ["template", "${7*7}{{7*7}}"],
  ["proto", "__proto__"],
  ["format string", "%s%s%s%n"],
];

/**
 * Percent escapes no decoder accepts, as they stand in a raw request path: not hex, the old `%u`
 * form, overlong UTF-8, an encoded surrogate, truncated and stray continuation bytes.
 */
export const MALFORMED_ESCAPES: readonly (readonly [label: string, escape: string])[] = [
  ["not hex", "%ZZ"],
  ["lone percent at the end", "abc%"],
  ["one hex digit", "%A"],
  ["%u form", "%uD800"],
  ["overlong dot", "%C0%AE"],
  ["overlong slash", "%E0%80%AF"],
  ["encoded high surrogate", "%ED%A0%80"],
  ["truncated sequence", "%E2%82"],
  ["stray continuation byte", "%80"],
  ["beyond U+10FFFF", "%F4%90%80%80"],
];

/** Bodies that are not the JSON a route expects, as raw text (lone surrogates as JSON escapes). */
export const BAD_JSON_TEXTS: readonly (readonly [label: string, text: string])[] = [
  ["no body", ""],
  ["not json", "{not json"],
  ["truncated", '{"a": [1, 2'],
  ["json null", "null"],
  ["json array", "[]"],
  ["json string", '"hello"'],
  ["json number", "42"],
  ["escaped NUL", '{"reason": "a\\u0000b"}'],
  ["escaped lone surrogate", '{"reason": "\\ud800\\udc00\\ud800"}'],
  ["proto pollution", '{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}'],
  ["deep nesting", `${"[".repeat(5000)}${"]".repeat(5000)}`],
  ["duplicate keys", '{"a": 1, "a": 2}'],
  ["2 MB", JSON.stringify({ reason: "a".repeat(2 * 1024 * 1024) })],
  ["BOM", '\uFEFF{"a": 1}'],
];

/** Values that are JSON but of the wrong type for any field. */
export const WRONG_TYPES: readonly (readonly [label: string, value: unknown])[] = [
  ["null", null],
  ["number", 12],
  ["boolean", true],
  ["array", ["x"]],
  ["object", { $ne: null }],
  ["huge array", Array.from({ length: 10_000 }, (_, i) => `k${i}`)],
];

/** A stack frame or a database error's words: in no answer at all. */
const STACK_TRACE = /\n\s+at .+\(|\s+at .+\.[jt]sx?:\d+:\d+|PrismaClient|invalid byte sequence|syntax error at|unsupported Unicode escape/i;
/** Server paths and source locations: in no refusal (a 2xx may carry data that names paths). */
const SERVER_DETAIL = /node_modules|\/work\/|\.tsx?:\d+|Error: /;

/** A refusal: 4xx, JSON, `{error: {code, message}}` with a message; no stack trace anywhere. */
export async function expectCleanAnswer(response: Response, context: string): Promise<{ status: number; body: unknown }> {
  const text = await response.text();
  expect(response.status, `${context}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text, context).not.toMatch(STACK_TRACE);
  let body: unknown = null;
  if (response.status >= 400) {
    expect(response.headers.get("content-type"), context).toMatch(/application\/json/);
    expect(text, context).not.toMatch(SERVER_DETAIL);
    body = JSON.parse(text);
    const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
    expect(typeof error?.code, context).toBe("string");
    expect(typeof error?.message, context).toBe("string");
    expect((error?.message as string).length, context).toBeGreaterThan(5);
    // A clear message, not the input echoed back whole.
    expect(text.length, context).toBeLessThan(20_000);
  }
  return { status: response.status, body };
}

export function describeValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}… (${text.length} chars)` : JSON.stringify(text);
}

/** True when the text is well-formed UTF-16 (no lone surrogate). */
export function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
