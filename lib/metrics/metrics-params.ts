import { createParser, createSerializer, parseAsStringLiteral } from "nuqs/server";
import { z } from "zod";
import {
  parseStrictParams,
  printableText,
  type ParseResult,
  type RawParams,
  type UnknownParams,
} from "@/lib/url-state/strict-params";
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

const name = printableText(200);

/** Each parameter's schema: the parser reads with it, the OpenAPI document shows it. */
export const METRICS_QUERY_FIELDS = {
  window: z.enum(METRICS_WINDOWS, { error: (issue) => `expected 1h, 24h or 48h, got ${quoteInput(issue.input)}` }),
  tool: name,
  tenant: name,
} as const;

/**
 * The metrics query from a URL. The API refuses unknown parameters (a typo like `tenat=` must
 * not silently widen the figures to every tenant); the page ignores them.
 */
export function parseMetricsQuery(
  input: RawParams,
  options: { unknownParams: UnknownParams },
): ParseResult<MetricsQuery> {
  const { values, problems } = parseStrictParams(input, METRICS_QUERY_FIELDS, METRICS_PARAMS, {
    unknownParams: options.unknownParams,
    unknownHint: `metrics take ${METRICS_PARAMS.join(", ")}`,
  });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      window: values.window ?? DEFAULT_METRICS_WINDOW,
      tool: values.tool ?? null,
      tenant: values.tenant ?? null,
    },
  };
}

// nuqs parsers: the client's view of the same fields (an invalid value reads as absent there).
function nameParser() {
  return createParser<string>({
    parse: (value) => (value !== "" && METRICS_QUERY_FIELDS.tool.safeParse(value).success ? value : null),
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
