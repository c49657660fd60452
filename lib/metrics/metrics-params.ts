import { createParser, createSerializer, parseAsStringLiteral } from "nuqs/server";
import { z } from "zod";
import { UNRECORDED_TOOL } from "@/lib/records/list-filters";
import { quoteInput } from "@/lib/text/quote-input";

/**
 * THE parser of the metrics view's URL state — window, tool, tenant — shared by the server page,
 * the client filter bar (nuqs) and GET /api/v1/metrics (zod, unknown parameters named and
 * refused). Imported by client components: no server code here.
 */

export const METRICS_WINDOWS = ["1h", "24h", "48h"] as const;
export type MetricsWindow = (typeof METRICS_WINDOWS)[number];
export const DEFAULT_METRICS_WINDOW: MetricsWindow = "24h";

export const METRICS_PARAMS = ["window", "tool", "tenant"] as const;

/** In the `tool` parameter, this value selects rows whose writer does not record the tool. */
export { UNRECORDED_TOOL };

export type MetricsQuery = {
  window: MetricsWindow;
  /** A tool name, UNRECORDED_TOOL, or null for every tool. */
  tool: string | null;
  tenant: string | null;
};

const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;
const name = z.string().max(200, "at most 200 characters").regex(PRINTABLE, "control characters are not allowed");

const FIELD_SCHEMAS = {
  window: z.enum(METRICS_WINDOWS, { error: (issue) => `expected 1h, 24h or 48h, got ${quoteInput(issue.input)}` }),
  tool: name,
  tenant: name,
} as const;

export type ParamProblem = { param: string; message: string };
export type MetricsQueryResult = { ok: true; value: MetricsQuery } | { ok: false; problems: ParamProblem[] };

type RawParams = URLSearchParams | Record<string, string | string[] | undefined>;

function entries(input: RawParams): [string, string[]][] {
  if (input instanceof URLSearchParams) {
    const grouped = new Map<string, string[]>();
    for (const [k, v] of input) grouped.set(k, [...(grouped.get(k) ?? []), v]);
    return [...grouped];
  }
  return Object.entries(input).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v : [v]] as [string, string[]]]));
}

/**
 * The metrics query from a URL. The API refuses unknown parameters (a typo like `tenat=` must
 * not silently widen the figures to every tenant); the page ignores them.
 */
export function parseMetricsQuery(input: RawParams, options: { unknownParams: "reject" | "ignore" }): MetricsQueryResult {
  const problems: ParamProblem[] = [];
  const query: MetricsQuery = { window: DEFAULT_METRICS_WINDOW, tool: null, tenant: null };
  const unknown: string[] = [];
  for (const [param, raw] of entries(input)) {
    if (!(METRICS_PARAMS as readonly string[]).includes(param)) {
      unknown.push(param);
      continue;
    }
    if (raw.length > 1) {
      problems.push({ param, message: `${param}: given ${raw.length} times; give it once` });
      continue;
    }
    const value = raw[0] ?? "";
    if (value === "") continue;
    const field = param as (typeof METRICS_PARAMS)[number];
    const result = FIELD_SCHEMAS[field].safeParse(value);
    if (!result.success) {
      problems.push({ param, message: `${param}: ${result.error.issues[0]?.message ?? "invalid"}` });
      continue;
    }
    if (field === "window") query.window = result.data as MetricsWindow;
    else query[field] = result.data;
  }
  if (unknown.length > 0 && options.unknownParams === "reject") {
    problems.unshift({
      param: unknown.join(","),
      message: `unknown parameter${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => quoteInput(u)).join(", ")}; metrics take ${METRICS_PARAMS.join(", ")}`,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: query };
}

// nuqs parsers: the client's view of the same fields (an invalid value reads as absent there).
function nameParser() {
  return createParser<string>({
    parse: (value) => (value !== "" && FIELD_SCHEMAS.tool.safeParse(value).success ? value : null),
    serialize: String,
  });
}

export const metricsSearchParams = {
  window: parseAsStringLiteral(METRICS_WINDOWS).withDefault(DEFAULT_METRICS_WINDOW),
  tool: nameParser(),
  tenant: nameParser(),
};

/** `serializeMetricsParams("/metrics", {...})` → a link to that view. */
export const serializeMetricsParams = createSerializer(metricsSearchParams);
