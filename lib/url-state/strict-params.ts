import { z } from "zod";
import { pageSizeRule, printableRule, type FieldRule } from "@/lib/url-state/field-rules";
import { quoteInput } from "@/lib/text/quote-input";

/**
 * The mechanics every strict URL-state parser shares (records, audit, metrics): group repeated
 * parameters, refuse or ignore unknown ones, refuse a parameter given twice, and parse each
 * value with its field's zod schema, naming the parameter in every message. Each domain keeps
 * its own fields and its own cross-field rules. Server-side: client components use field-rules.ts.
 */

export type ParamProblem = { param: string; message: string };
export type ParseResult<T> = { ok: true; value: T } | { ok: false; problems: ParamProblem[] };
/** A URL's query, as URLSearchParams or as Next's `searchParams` object. */
export type RawParams = URLSearchParams | Record<string, string | string[] | undefined>;
/** The API refuses unknown parameters (a typo must not silently widen a result); pages ignore them. */
export type UnknownParams = "reject" | "ignore";

// Field rules more than one parser takes: the plain rules of field-rules.ts, as zod schemas.

/** A field rule as a zod schema of the raw text: the rule's message is the issue's, its shape the documented one. */
export function fieldSchema<T>(rule: FieldRule<T>) {
  const schema = z.string().transform((value, ctx) => {
    const checked = rule(value);
    if (!checked.ok) {
      ctx.addIssue({ code: "custom", message: checked.message });
      return z.NEVER;
    }
    return checked.value;
  });
  return rule.shape ? schema.meta({ ...rule.shape }) : schema;
}

/** Free text: bounded, no control characters. */
export function printableText(max: number) {
  return fieldSchema(printableRule(max));
}

/** A cursor this console issued, read by `decode`; `refusal` says what to do instead. */
export function cursorField<C>(decode: (token: string) => C | null, refusal: string) {
  return fieldSchema((value) => {
    const cursor = decode(value);
    return cursor ? { ok: true, value: cursor } : { ok: false, message: refusal };
  });
}

/** A page size, one of `sizes`. */
export function pageSizeField<const S extends readonly number[]>(sizes: S) {
  return fieldSchema(pageSizeRule(sizes));
}

/** Each parameter with all its values, in the order the parameters first appear. */
export function groupParams(input: RawParams): [string, string[]][] {
  if (input instanceof URLSearchParams) {
    const grouped = new Map<string, string[]>();
    for (const [k, v] of input) grouped.set(k, [...(grouped.get(k) ?? []), v]);
    return [...grouped];
  }
  return Object.entries(input).flatMap(([k, v]) =>
    v === undefined ? [] : [[k, Array.isArray(v) ? v : [v]] as [string, string[]]],
  );
}

export type StrictParamsOptions = {
  unknownParams: UnknownParams;
  /** Ends the unknown-parameter message: what the endpoint takes instead. */
  unknownHint: string;
  /** Trim each value before the empty check and the field's schema. */
  trim?: boolean;
};

/**
 * The accepted parameters' parsed values, and every problem: the unknown parameters first (when
 * refused), then each bad parameter in URL order. An empty value means "no filter" (an empty
 * form field) and is left out of the values.
 */
export function parseStrictParams<S extends Record<string, z.ZodType>, K extends keyof S & string>(
  input: RawParams,
  schemas: S,
  accepted: readonly K[],
  options: StrictParamsOptions,
): { values: { [P in K]?: z.output<S[P]> }; problems: ParamProblem[] } {
  const problems: ParamProblem[] = [];
  const values: Partial<Record<K, unknown>> = {};
  const unknown: string[] = [];
  for (const [param, raw] of groupParams(input)) {
    if (!(accepted as readonly string[]).includes(param)) {
      unknown.push(param);
      continue;
    }
    if (raw.length > 1) {
      problems.push({ param, message: `${param}: given ${raw.length} times; give it once` });
      continue;
    }
    const value = options.trim ? (raw[0] ?? "").trim() : (raw[0] ?? "");
    if (value === "") continue;
    const result = (schemas[param as K] as S[K]).safeParse(value);
    if (result.success) values[param as K] = result.data;
    else problems.push({ param, message: `${param}: ${result.error.issues[0]?.message ?? "invalid"}` });
  }
  if (unknown.length > 0 && options.unknownParams === "reject") {
    problems.unshift({
      param: unknown.join(","),
      message: `unknown parameter${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => quoteInput(u)).join(", ")}; ${options.unknownHint}`,
    });
  }
  return { values: values as { [P in K]?: z.output<S[P]> }, problems };
}
