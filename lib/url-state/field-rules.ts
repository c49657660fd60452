import { expectedInstant, parseInstant } from "@/lib/format/instant";
import { quoteInput } from "@/lib/text/quote-input";

/**
 * Field rules of URL state as plain functions, no zod: the browser's filter bars parse the URL
 * with them (nuqs), the server's strict parsers wrap the very same functions in zod
 * (strict-params.ts `fieldSchema`), so both sides read one value one way and zod's ~30 KB gzip
 * stays off the client. Imported by client components: no server code.
 */
export type FieldCheck<T> = { ok: true; value: T } | { ok: false; message: string };
/**
 * What a rule accepts, as the JSON Schema of a query parameter: declared beside the rule so the
 * OpenAPI document (lib/api/openapi.ts, via strict-params.ts `fieldSchema`) cannot drift from it.
 */
export type RuleShape = {
  type: "string" | "integer" | "boolean";
  enum?: readonly (string | number)[];
  pattern?: string;
  maxLength?: number;
  description?: string;
};
export type FieldRule<T> = ((raw: string) => FieldCheck<T>) & { shape?: RuleShape };

/** `rule` with the shape it accepts. */
export function shapedRule<T>(rule: (raw: string) => FieldCheck<T>, shape: RuleShape): FieldRule<T> {
  return Object.assign(rule, { shape });
}

const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;

/** Free text: bounded, no control characters. */
export function printableRule(max: number): FieldRule<string> {
  return shapedRule(
    (raw) => {
      if (raw.length > max) return { ok: false, message: `at most ${max} characters` };
      if (!PRINTABLE.test(raw)) return { ok: false, message: "control characters are not allowed" };
      return { ok: true, value: raw };
    },
    { type: "string", maxLength: max, pattern: PRINTABLE.source },
  );
}

/** `first`, then `second` on its value; shaped as `shape`, else as both rules' shapes together. */
export function thenRule<A, B>(
  first: FieldRule<A>,
  second: ((value: A) => FieldCheck<B>) & { shape?: RuleShape },
  shape?: RuleShape,
): FieldRule<B> {
  const rule = (raw: string) => {
    const checked = first(raw);
    return checked.ok ? second(checked.value) : checked;
  };
  const merged = shape ?? (first.shape || second.shape ? { ...first.shape, ...second.shape } : undefined);
  return merged ? shapedRule(rule, merged as RuleShape) : rule;
}

/** An instant (lib/format/instant.ts: a time without a zone is refused), with an example of each accepted form. */
export const instantRule: FieldRule<Date> = shapedRule(
  (raw) => {
    const date = parseInstant(raw);
    return date
      ? { ok: true, value: date }
      : { ok: false, message: `expected ${expectedInstant()}, got ${quoteInput(raw)}` };
  },
  {
    type: "string",
    description:
      "A date (2026-11-29, its UTC midnight) or a date-time with a zone (2026-11-29T14:05Z); a time without a zone is refused.",
  },
);

/** The URL form of an instant: ISO UTC, without a zero millisecond part. */
export function formatInstant(date: Date): string {
  return date.toISOString().replace(".000Z", "Z");
}

/**
 * An instant as a person would type it into a filter field: the date alone at UTC midnight, no
 * seconds when they are zero (2026-11-29, 2026-11-29T14:05Z), else formatInstant's. The
 * instant rule reads each form back to the same instant; a filter field is sized for these.
 */
export function formatInstantShort(date: Date): string {
  const full = formatInstant(date);
  if (full.endsWith("T00:00:00Z")) return full.slice(0, 10);
  return full.endsWith(":00Z") ? `${full.slice(0, 16)}Z` : full;
}

/** A page size, one of `sizes`. */
export function pageSizeRule<const S extends readonly number[]>(sizes: S): FieldRule<S[number]> {
  return shapedRule(
    (raw) => {
      const size = sizes.find((s) => String(s) === raw);
      return size === undefined
        ? { ok: false, message: `expected one of ${sizes.join(", ")}, got ${quoteInput(raw)}` }
        : { ok: true, value: size };
    },
    { type: "integer", enum: sizes },
  );
}

/** `true` or `false`. */
export const booleanRule: FieldRule<boolean> = shapedRule(
  (raw) =>
    raw === "true" || raw === "false"
      ? { ok: true, value: raw === "true" }
      : { ok: false, message: `expected true or false, got ${quoteInput(raw)}` },
  { type: "boolean" },
);
