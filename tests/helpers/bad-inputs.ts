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
  ["HTML script", "<script>alert(1)</script>"],
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

/** Every spelling of an address a probe tried, as an admin would type it into "add server". */
export const REFUSED_URLS: readonly (readonly [label: string, url: string])[] = [
  ["metadata, dotted", "http://169.254.169.254/latest/meta-data/"],
  ["metadata, decimal", "http://2852039166/"],
  ["metadata, hex", "http://0xa9fea9fe/"],
  ["metadata, octal", "http://0251.0376.0251.0376/"],
  ["metadata, dotted hex", "http://0xa9.0xfe.0xa9.0xfe/"],
  ["metadata, IPv4-mapped IPv6", "http://[::ffff:169.254.169.254]/"],
  ["metadata, IPv4-mapped IPv6 hex", "http://[::ffff:a9fe:a9fe]/"],
  ["metadata by name", "http://metadata.google.internal/computeMetadata/v1/"],
  ["metadata by name, trailing dot", "http://metadata.google.internal./"],
  ["AWS IPv6 metadata", "http://[fd00:ec2::254]/"],
  ["loopback", "http://127.0.0.1:5432/"],
  ["loopback, other", "http://127.1.2.3/"],
  ["loopback, decimal", "http://2130706433/"],
  ["loopback, short", "http://127.1/"],
  ["IPv6 loopback", "http://[::1]:3000/"],
  ["IPv6 loopback, long", "http://[0:0:0:0:0:0:0:1]/"],
  ["unspecified", "http://0.0.0.0:3000/"],
  ["unspecified, short", "http://0/"],
  ["IPv6 unspecified", "http://[::]/"],
  ["private 10/8", "http://10.0.0.5/"],
  ["private 172.16/12", "http://172.20.1.1/"],
  ["private 192.168/16", "http://192.168.1.1/"],
  ["CGNAT", "http://100.64.0.1/"],
  ["IPv6 link-local", "http://[fe80::1]/"],
  ["IPv6 unique-local", "http://[fc00::1]/"],
  ["NAT64 of loopback", "http://[64:ff9b::7f00:1]/"],
  ["6to4 of private", "http://[2002:c0a8:0101::1]/"],
  ["broadcast", "http://255.255.255.255/"],
  ["multicast", "http://224.0.0.1/"],
  ["localhost by name", "http://localhost:5432/"],
  ["non-http scheme", "file:///etc/passwd"],
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
const STACK_TRACE =
  /\n\s+at .+\(|\s+at .+\.[jt]sx?:\d+:\d+|PrismaClient|invalid byte sequence|syntax error at|unsupported Unicode escape/i;
/** Server paths and source locations: in no refusal (a 2xx may carry data that names paths). */
const SERVER_DETAIL = /node_modules|\/work\/|\.tsx?:\d+|Error: /;

/** A refusal: 4xx, JSON, `{error: {code, message}}` with a message; no stack trace anywhere. */
export async function expectCleanAnswer(
  response: Response,
  context: string,
): Promise<{ status: number; body: unknown }> {
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
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}… (${text.length} chars)` : JSON.stringify(text);
}

/** True when the text is well-formed UTF-16 (no lone surrogate). */
export function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
