import { CanonicalJsonError, parseJsonText, type JsonNode } from "./canonical-python-json.ts";

/**
 * RFC 8785 JSON Canonicalization Scheme, for writers that are not Python: object keys sorted by
 * UTF-16 code units, numbers as IEEE 754 doubles written by ECMAScript's Number#toString, strings
 * with only the escapes JSON requires (non-ASCII stays as is, hashed as UTF-8).
 *
 * JCS input must be I-JSON (RFC 7493), so this refuses what the RFC says to refuse rather than
 * guessing: duplicate keys, lone surrogates, NaN/Infinity and numbers that overflow a double.
 * Integers beyond 2^53 are rounded to the nearest double, as the RFC specifies.
 */
export function canonicalJcs(text: string): string {
  return serialize(parseJsonText(text, { nonFinite: false }));
}

function serialize(node: JsonNode): string {
  switch (node.type) {
    case "literal":
      return node.text;
    case "number": {
      const x = Number(node.raw);
      if (!Number.isFinite(x))
        throw new CanonicalJsonError(
          `Number ${node.raw} is out of range for JCS (an IEEE 754 double) at char ${node.position}`,
          node.position,
        );
      return String(x); // -0 is written "0", as the RFC requires
    }
    case "string":
      return jcsString(node);
    case "array":
      return `[${node.items.map(serialize).join(",")}]`;
    case "object": {
      const seen = new Set<string>();
      for (const { key } of node.members) {
        if (seen.has(key.value))
          throw new CanonicalJsonError(
            `Duplicate key ${JSON.stringify(key.value)} (JCS input must be I-JSON) at char ${key.position}`,
            key.position,
          );
        seen.add(key.value);
      }
      // Plain < on strings compares UTF-16 code units, which is the order RFC 8785 asks for.
      const members = [...node.members].sort((a, b) =>
        a.key.value < b.key.value ? -1 : a.key.value > b.key.value ? 1 : 0,
      );
      return `{${members.map((m) => `${jcsString(m.key)}:${serialize(m.value)}`).join(",")}}`;
    }
  }
}

const ESCAPES: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x08: "\\b",
  0x0c: "\\f",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
};

function jcsString(node: Extract<JsonNode, { type: "string" }>): string {
  if (node.codePoints.some((cp) => cp >= 0xd800 && cp <= 0xdfff)) {
    throw new CanonicalJsonError(
      `String with a lone surrogate (JCS input must be I-JSON) at char ${node.position}`,
      node.position,
    );
  }
  let out = '"';
  for (let i = 0; i < node.value.length; i++) {
    const unit = node.value.charCodeAt(i);
    const escape = ESCAPES[unit];
    if (escape !== undefined) out += escape;
    else if (unit < 0x20) out += `\\u${unit.toString(16).padStart(4, "0")}`;
    else out += node.value[i];
  }
  return `${out}"`;
}
