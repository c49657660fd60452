import { JSONPath } from "jsonpath-plus";

export const REDACTED = "[redacted]";

/** Which values are masked wherever they stand, whatever their field is called. */
export type ValueMasks = { email: boolean; cardNumbers: boolean };
export const DEFAULT_VALUE_MASKS: ValueMasks = { email: true, cardNumbers: true };

/** What is masked: the configured JSONPaths, and values that look like personal data under any key. */
export type Redaction = { paths: readonly string[]; values: ValueMasks };

/** The redaction a configuration asks for (`redact` paths, `redactValues` masks). */
export function redactionOf(config: { redact: readonly string[]; redactValues?: ValueMasks }): Redaction {
  return { paths: config.redact, values: config.redactValues ?? DEFAULT_VALUE_MASKS };
}

/**
 * Masks every value matched by the configured JSONPaths (`$..card`, `$.customer.email`), then, by
 * value, e-mail addresses and card numbers (13–19 digits, spaces or dashes allowed, passing Luhn)
 * inside any string or number under any key: path masks alone cannot know every writer's field
 * names (`"to": "user_24@globex.example"`). Returns a copy; the input is never changed. Script
 * expressions are disabled (eval: false): the paths come from a config file, but nothing in it
 * should ever run code. A bare string array is paths with the default value masks.
 */
export function redactJson(
  value: unknown,
  redaction: Redaction | readonly string[],
): { value: unknown; redactedPaths: string[] } {
  const { paths, values } = Array.isArray(redaction)
    ? { paths: redaction as readonly string[], values: DEFAULT_VALUE_MASKS }
    : (redaction as Redaction);
  const masksValues = values.email || values.cardNumbers;
  if (value === null || value === undefined) return { value, redactedPaths: [] };
  if (typeof value !== "object") {
    if (!masksValues) return { value, redactedPaths: [] };
    const masked = maskScalar(value, values);
    return masked === value ? { value, redactedPaths: [] } : { value: masked, redactedPaths: ["$"] };
  }
  if (paths.length === 0 && !masksValues) return { value, redactedPaths: [] };
  const copy = structuredClone(value) as object;
  const redactedPaths = new Set<string>();
  for (const path of paths) {
    const matches = JSONPath({ path, json: copy, resultType: "all", eval: false, wrap: true }) as {
      parent: Record<string | number, unknown> | null;
      parentProperty: string | number | null;
      path: string;
    }[];
    for (const match of matches) {
      // JSONPath also matches a string's characters and an array's `length`: neither is a field to mask.
      const parent = match.parent;
      if (parent === null || typeof parent !== "object" || match.parentProperty === null) continue;
      if (Array.isArray(parent) && match.parentProperty === "length") continue;
      parent[match.parentProperty] = REDACTED;
      redactedPaths.add(match.path);
    }
  }
  if (masksValues) maskValuesIn(copy as Record<string | number, unknown>, "$", values, redactedPaths);
  return { value: copy, redactedPaths: [...redactedPaths].sort() };
}

// Local part and domain of an address as people write them (not every RFC 5322 form: a quoted local part is not personal data's usual shape).
const EMAIL =
  /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+/g;
/**
 * 13–19 digits, optionally grouped by single spaces or dashes, standing alone: no letter, digit or
 * "_" may touch it, so a digit run inside a 64-hex key or an id like ch_… is not a card number.
 * Lookup blanks the same candidates (lib/records/lookup-tokens.ts): what is masked is never searched.
 */
export const CARD_CANDIDATE = /(?<![0-9A-Za-z_])\d(?:[ -]?\d){12,18}(?![0-9A-Za-z_])/g;

function maskValuesIn(
  node: Record<string | number, unknown>,
  path: string,
  values: ValueMasks,
  redactedPaths: Set<string>,
): void {
  for (const key of Object.keys(node)) {
    const child = node[key];
    const childPath = valueMaskChildPath(path, key, Array.isArray(node));
    if (child !== null && typeof child === "object") {
      maskValuesIn(child as Record<string | number, unknown>, childPath, values, redactedPaths);
    } else if (child !== REDACTED) {
      const masked = maskScalar(child, values);
      if (masked !== child) {
        node[key] = masked;
        redactedPaths.add(childPath);
      }
    }
  }
}

/** How a value mask names a field below `path`: `[i]` in an array, `['key']` in an object, the key as it is. */
export function valueMaskChildPath(path: string, key: string | number, inArray: boolean): string {
  return inArray ? `${path}[${key}]` : `${path}['${key}']`;
}

/** The scalar with each e-mail address and card number in it replaced by [redacted]; the same value when none. */
export function maskScalar(value: unknown, values: ValueMasks): unknown {
  if (typeof value === "number") {
    return values.cardNumbers && Number.isSafeInteger(value) && isCardNumber(String(Math.abs(value)))
      ? REDACTED
      : value;
  }
  if (typeof value !== "string") return value;
  let text = value;
  // Both checks are what a match needs (an "@", 13 digits), so skipping the regex on a miss changes nothing.
  if (values.email && text.includes("@")) text = text.replace(EMAIL, REDACTED);
  if (values.cardNumbers && hasDigits(text, 13))
    text = text.replace(CARD_CANDIDATE, (candidate) =>
      isCardNumber(candidate.replace(/[ -]/g, "")) ? REDACTED : candidate,
    );
  return text === value ? value : text;
}

function hasDigits(text: string, count: number): boolean {
  let seen = 0;
  for (let i = 0; i < text.length && seen < count; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) seen += 1;
  }
  return seen >= count;
}

/** 13–19 digits whose Luhn checksum holds (ISO/IEC 7812 primary account numbers). */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Nobody sees the configured paths by default, whatever their role: operators and admins may
// reveal one record's stored response, with a reason, and each reveal is audited
// (lib/records/reveal-response.ts). Everything else — pages, API, exports, the audit log, the
// processor's receipts — shows them masked.
