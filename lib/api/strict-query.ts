import { z } from "zod";
import type { QuerySpec } from "@/lib/api/contract";
import { parseStrictParams, type ParamProblem, type ParseResult } from "@/lib/url-state/strict-params";

type FieldShape = Record<string, z.ZodType>;
type Values<S extends FieldShape> = { [K in keyof S]?: z.output<S[K]> };

export type StrictQueryOptions<S extends FieldShape> = {
  /** Ends the unknown-parameter message: what the endpoint takes. */
  hint: string;
  /** Parameters that must be given, each with the message that says what to put there. */
  required?: { [K in keyof S]?: string };
  trim?: boolean;
};

/**
 * A query of plain fields, each parsed by its own schema: unknown and repeated parameters are
 * refused (lib/url-state/strict-params.ts), a missing required one is named with its message.
 */
export function strictQuery<const S extends FieldShape>(
  fields: S,
  options: StrictQueryOptions<S>,
): QuerySpec<Values<S>> {
  const names = Object.keys(fields) as (keyof S & string)[];
  return {
    params: documentedParams(fields, { required: Object.keys(options.required ?? {}) }),
    parse(input): ParseResult<Values<S>> {
      const { values, problems } = parseStrictParams(input, fields, names, {
        unknownParams: "reject",
        unknownHint: options.hint,
        trim: options.trim,
      });
      const missing: ParamProblem[] = Object.entries(options.required ?? {})
        .filter(([name]) => !input.has(name))
        .map(([name, message]) => ({ param: name, message: `${name}: ${message as string}` }));
      const all = [...problems, ...missing];
      return all.length > 0 ? { ok: false, problems: all } : { ok: true, value: values as Values<S> };
    },
  };
}

/**
 * A query the domain parses itself (its cross-field rules), documented by the very schemas its
 * parser reads each parameter with: an enum, a pattern or a bound shows as the parser enforces it.
 */
export function domainQuery<T>(
  fields: FieldShape,
  parse: QuerySpec<T>["parse"],
  options: { described?: Record<string, string>; required?: readonly string[] } = {},
): QuerySpec<T> {
  return { params: documentedParams(fields, options), parse };
}

/** The parameters' documented schemas: each field's own, optional unless required, with any description given. */
function documentedParams(
  fields: FieldShape,
  options: { described?: Record<string, string>; required?: readonly string[] },
): z.ZodObject {
  return z.object(
    Object.fromEntries(
      Object.entries(fields).map(([name, schema]) => {
        const presence = options.required?.includes(name) ? schema : schema.optional();
        const description = options.described?.[name];
        return [name, description ? presence.describe(description) : presence];
      }),
    ),
  );
}

/** `names` of a parser's fields: the parameters one route of several sharing the fields takes. */
export function pickFields<S extends FieldShape, const K extends keyof S>(fields: S, names: readonly K[]): Pick<S, K> {
  return Object.fromEntries(names.map((name) => [name, fields[name]])) as Pick<S, K>;
}

/** The query of a route that takes none: any parameter is refused, so a typo is never ignored. */
export const noQuery: QuerySpec<Record<string, never>> = strictQuery(
  {},
  { hint: "this endpoint takes no query parameters" },
) as QuerySpec<Record<string, never>>;
