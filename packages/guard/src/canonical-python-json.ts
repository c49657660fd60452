/**
 * The canonical form the reference writer hashes (docs/architecture.md#keys-and-buckets): Python's
 * `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))`, reproduced byte for byte.
 *
 * It parses the text itself because JSON.parse forgets what Python remembers: `1.0` is a float
 * (written back as `1.0`, not `1`), `12345678901234567890` is an exact int, and `"\ud83d"` followed
 * by a raw low surrogate is two code points, not one. Python's own limits are kept, so a text this
 * accepts is one Python accepts:
 * - `NaN`, `Infinity` and `-Infinity` are accepted and written back as such (json.loads allows
 *   them, and an overflowing float like `1e400` becomes `Infinity` there too).
 * - An integer of more than 4300 digits is refused (Python 3.11+ raises ValueError on it).
 * - Nesting deeper than MAX_DEPTH is refused (Python hits its recursion limit near 1000).
 * Positions in errors count UTF-16 code units, where Python's count code points.
 */

export const MAX_DEPTH = 512;
const MAX_INT_DIGITS = 4300;

export class CanonicalJsonError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = "CanonicalJsonError";
  }
}

/** A parsed JSON text that still knows how each number and string was written. */
export type JsonNode =
  | { type: "literal"; text: "null" | "true" | "false" }
  /** `raw` is the number as written; `NaN`, `Infinity` or `-Infinity` when non-finite literals are allowed. */
  | { type: "number"; raw: string; integer: boolean; position: number }
  /** `codePoints` as Python sees them: an escaped surrogate pair is one, a raw lone surrogate stays one. */
  | { type: "string"; value: string; codePoints: number[]; position: number }
  | { type: "array"; items: JsonNode[] }
  | { type: "object"; members: { key: Extract<JsonNode, { type: "string" }>; value: JsonNode }[] };

export type ParseOptions = { nonFinite: boolean };

export function canonicalPythonJson(text: string): string {
  return dumps(parseJsonText(text, { nonFinite: true }));
}

/** Parses JSON text with Python json.loads' grammar (RFC 8259, plus NaN/Infinity when allowed). */
export function parseJsonText(text: string, options: ParseOptions): JsonNode {
  return new Parser(text, options).parseDocument();
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const SHORT_ESCAPES: Record<string, number> = {
  '"': 0x22,
  "\\": 0x5c,
  "/": 0x2f,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly options: ParseOptions,
  ) {}

  parseDocument(): JsonNode {
    if (this.text.charCodeAt(0) === 0xfeff) this.fail("Unexpected UTF-8 BOM", 0);
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail("Extra data", this.pos);
    return value;
  }

  private parseValue(depth: number): JsonNode {
    const c = this.text[this.pos];
    if (c === '"') return this.parseString();
    if (c === "{" || c === "[") {
      if (depth >= MAX_DEPTH) this.fail(`Nesting deeper than ${MAX_DEPTH} levels`, this.pos);
      return c === "{" ? this.parseObject(depth + 1) : this.parseArray(depth + 1);
    }
    for (const word of ["null", "true", "false"] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return { type: "literal", text: word };
      }
    }
    if (this.options.nonFinite) {
      for (const word of ["NaN", "Infinity", "-Infinity"]) {
        if (this.text.startsWith(word, this.pos)) {
          const position = this.pos;
          this.pos += word.length;
          return { type: "number", raw: word, integer: false, position };
        }
      }
    }
    return this.parseNumber();
  }

  private parseNumber(): JsonNode {
    const position = this.pos;
    NUMBER.lastIndex = position;
    const match = NUMBER.exec(this.text);
    if (!match) return this.fail("Expecting value", position);
    const raw = match[0];
    this.pos += raw.length;
    const integer = match[1] === undefined && match[2] === undefined;
    if (integer && raw.replace("-", "").length > MAX_INT_DIGITS) {
      this.fail(`Integer with more than ${MAX_INT_DIGITS} digits (Python refuses to convert it)`, position);
    }
    return { type: "number", raw, integer, position };
  }

  private parseArray(depth: number): JsonNode {
    this.pos++; // [
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return { type: "array", items };
    }
    for (;;) {
      this.skipWhitespace();
      items.push(this.parseValue(depth));
      this.skipWhitespace();
      const c = this.text[this.pos];
      this.pos++;
      if (c === "]") return { type: "array", items };
      if (c !== ",") this.fail("Expecting ',' delimiter", this.pos - 1);
    }
  }

  private parseObject(depth: number): JsonNode {
    this.pos++; // {
    const members: Extract<JsonNode, { type: "object" }>["members"] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return { type: "object", members };
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail("Expecting property name enclosed in double quotes", this.pos);
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") this.fail("Expecting ':' delimiter", this.pos);
      this.pos++;
      this.skipWhitespace();
      members.push({ key, value: this.parseValue(depth) });
      this.skipWhitespace();
      const c = this.text[this.pos];
      this.pos++;
      if (c === "}") return { type: "object", members };
      if (c !== ",") this.fail("Expecting ',' delimiter", this.pos - 1);
    }
  }

  private parseString(): Extract<JsonNode, { type: "string" }> {
    const start = this.pos;
    const codePoints: number[] = [];
    this.pos++; // "
    for (;;) {
      if (this.pos >= this.text.length) this.fail("Unterminated string starting at", start);
      const unit = this.text.charCodeAt(this.pos);
      if (unit === 0x22) {
        this.pos++;
        return { type: "string", value: fromCodePoints(codePoints), codePoints, position: start };
      }
      if (unit < 0x20) this.fail("Invalid control character at", this.pos);
      if (unit !== 0x5c) {
        // A raw character: a well-formed surrogate pair in the text is one code point, as in UTF-8.
        const cp = this.text.codePointAt(this.pos) ?? unit;
        codePoints.push(cp);
        this.pos += cp > 0xffff ? 2 : 1;
        continue;
      }
      const escape = this.text[this.pos + 1];
      if (escape === "u") {
        let cp = this.readHex4(this.pos);
        this.pos += 6;
        // Python joins an escaped high surrogate with an escaped low one; anything else stays lone.
        if (cp >= 0xd800 && cp <= 0xdbff && this.pos + 6 < this.text.length && this.text.startsWith("\\u", this.pos)) {
          const low = this.readHex4(this.pos);
          if (low >= 0xdc00 && low <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            this.pos += 6;
          }
        }
        codePoints.push(cp);
        continue;
      }
      const short = escape === undefined ? undefined : SHORT_ESCAPES[escape];
      if (short === undefined) this.fail("Invalid \\escape", this.pos);
      codePoints.push(short);
      this.pos += 2;
    }
  }

  /** Like Python, an escape with no room left for the closing quote is itself the error. */
  private readHex4(backslash: number): number {
    const hex = this.text.slice(backslash + 2, backslash + 6);
    if (backslash + 6 >= this.text.length || !/^[0-9a-fA-F]{4}$/.test(hex))
      this.fail("Invalid \\uXXXX escape", backslash + 1);
    return Number.parseInt(hex, 16);
  }

  private skipWhitespace(): void {
    for (;;) {
      const c = this.text[this.pos];
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return;
      this.pos++;
    }
  }

  private fail(message: string, position: number): never {
    const before = this.text.slice(0, position);
    const line = before.split("\n").length;
    const column = position - before.lastIndexOf("\n");
    throw new CanonicalJsonError(`${message}: line ${line} column ${column} (char ${position})`, position);
  }
}

/** String.fromCodePoint in chunks: spreading a long string's code points would overflow the stack. */
function fromCodePoints(codePoints: number[]): string {
  let out = "";
  for (let i = 0; i < codePoints.length; i += 4096) out += String.fromCodePoint(...codePoints.slice(i, i + 4096));
  return out;
}

function dumps(node: JsonNode): string {
  switch (node.type) {
    case "literal":
      return node.text;
    case "number":
      if (node.integer) return node.raw === "-0" ? "0" : node.raw;
      return pythonFloatRepr(Number(node.raw));
    case "string":
      return asciiString(node.value);
    case "array":
      return `[${node.items.map(dumps).join(",")}]`;
    case "object": {
      // A dict keeps the last value of a repeated key; keys are compared as code point sequences.
      const byKey = new Map<string, { key: Extract<JsonNode, { type: "string" }>; value: JsonNode }>();
      for (const member of node.members) byKey.set(member.key.codePoints.join(","), member);
      const members = [...byKey.values()].sort((a, b) => compareCodePoints(a.key.codePoints, b.key.codePoints));
      return `{${members.map((m) => `${asciiString(m.key.value)}:${dumps(m.value)}`).join(",")}}`;
    }
  }
}

function compareCodePoints(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

const ASCII_ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x08: "\\b",
  0x0c: "\\f",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
};

/**
 * ensure_ascii: everything outside space..tilde becomes \uXXXX (lowercase hex). Working per UTF-16
 * unit writes a code point beyond U+FFFF as its surrogate pair, exactly as Python does.
 */
function asciiString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const short = ASCII_ESCAPES[unit];
    if (short !== undefined) out += short;
    else if (unit >= 0x20 && unit <= 0x7e) out += value[i];
    else out += `\\u${unit.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/**
 * Python's repr(float): the shortest digits that round-trip (the same digits ECMAScript picks),
 * laid out as Python does: exponent form when the decimal exponent is < -4 or >= 16, written
 * `e+16`/`e-05`; otherwise positional with at least one digit after the point.
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  if (x === 0) return `${sign}0.0`;
  const { digits, exponent } = shortestDigits(Math.abs(x));
  if (exponent < -4 || exponent >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const exp = `${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
    return `${sign}${mantissa}e${exp}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  if (exponent + 1 >= digits.length) return `${sign}${digits}${"0".repeat(exponent + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

/** Significant digits (no trailing zeros) and the decimal exponent of the first, from ECMAScript's String(x). */
function shortestDigits(x: number): { digits: string; exponent: number } {
  const s = String(x);
  let digits: string;
  let exponent: number;
  const e = s.indexOf("e");
  if (e >= 0) {
    digits = s.slice(0, e).replace(".", "");
    exponent = Number(s.slice(e + 1));
  } else {
    const [whole = "", fraction = ""] = s.split(".");
    if (whole !== "0") {
      digits = whole + fraction;
      exponent = whole.length - 1;
    } else {
      const zeros = fraction.length - fraction.replace(/^0+/, "").length;
      digits = fraction.slice(zeros);
      exponent = -zeros - 1;
    }
  }
  return { digits: digits.replace(/0+$/, ""), exponent };
}
