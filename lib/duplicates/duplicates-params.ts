import { z } from "zod";
import { printableRule } from "@/lib/url-state/field-rules";
import {
  fieldSchema,
  groupParams,
  parseStrictParams,
  type ParseResult,
  type RawParams,
  type UnknownParams,
} from "@/lib/url-state/strict-params";
import { quoteInput } from "@/lib/text/quote-input";

/**
 * THE parser of the duplicates view's URL state — window, tool, tenant, limit, cursor — shared by
 * the page (unknown parameters ignored) and GET /api/v1/duplicates (unknown parameters named and
 * refused). No server code here.
 */

/**
 * The metrics windows (lib/metrics/metrics-params.ts METRICS_WINDOWS), spelled again because
 * lib/metrics sits above this room (docs/architecture.md#doors); the duplicates contract
 * (lib/api/contracts/duplicates.ts) fails to compile if the two lists part.
 */
export const DUPLICATES_WINDOWS = ["1h", "24h", "48h"] as const;
export type DuplicatesWindow = (typeof DUPLICATES_WINDOWS)[number];
export const DEFAULT_DUPLICATES_WINDOW: DuplicatesWindow = "24h";
export const DUPLICATES_WINDOW_MS: Record<DuplicatesWindow, number> = {
  "1h": 3_600_000,
  "24h": 24 * 3_600_000,
  "48h": 48 * 3_600_000,
};

export const DUPLICATES_PARAMS = ["window", "tool", "tenant", "limit", "cursor"] as const;
export const MAX_DUPLICATES_LIMIT = 200;
export const DEFAULT_DUPLICATES_LIMIT = 50;

/** Where a page starts: the entry after this second claim (its created_at and key), newest first. */
export type DuplicatesCursor = { at: Date; key: string };

export type DuplicatesQuery = {
  window: DuplicatesWindow;
  tool: string | null;
  tenant: string | null;
  limit: number;
  cursor: DuplicatesCursor | null;
};

/** `<ISO instant, milliseconds, UTC>~<64-hex key>`, as listDuplicates issues it. */
export const DUPLICATES_CURSOR_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)~([0-9a-f]{64})$/;

/** The cursor from its text, or null when it is not one listDuplicates could have issued. */
export function decodeDuplicatesCursor(text: string): DuplicatesCursor | null {
  const match = DUPLICATES_CURSOR_PATTERN.exec(text);
  if (!match) return null;
  const at = new Date(match[1]!);
  // 2026-02-30T… parses, rolled over: only an instant that prints back as written was issued.
  if (Number.isNaN(at.getTime()) || at.toISOString() !== match[1]) return null;
  return { at, key: match[2]! };
}

const limitSchema = fieldSchema((raw) => {
  const n = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
  return n >= 1 && n <= MAX_DUPLICATES_LIMIT
    ? { ok: true, value: n }
    : { ok: false, message: `expected a whole number from 1 to ${MAX_DUPLICATES_LIMIT}, got ${quoteInput(raw)}` };
});

const FIELD_SCHEMAS = {
  window: z.enum(DUPLICATES_WINDOWS, { error: (issue) => `expected 1h, 24h or 48h, got ${quoteInput(issue.input)}` }),
  // The name rules of the records and metrics filters: bounded, no control characters.
  tool: fieldSchema(printableRule(200)),
  tenant: fieldSchema(printableRule(200)),
  limit: limitSchema,
  cursor: fieldSchema((raw) => {
    const cursor = decodeDuplicatesCursor(raw);
    return cursor
      ? { ok: true, value: cursor }
      : {
          ok: false,
          message:
            "not a cursor this console issued (pass nextCursor of the previous page, or drop it to start at the newest)",
        };
  }),
} as const;

export function parseDuplicatesQuery(
  input: RawParams,
  options: { unknownParams: UnknownParams },
): ParseResult<DuplicatesQuery> {
  const { values, problems } = parseStrictParams(input, FIELD_SCHEMAS, DUPLICATES_PARAMS, {
    unknownParams: options.unknownParams,
    unknownHint: `duplicates take ${DUPLICATES_PARAMS.join(", ")}`,
  });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      window: values.window ?? DEFAULT_DUPLICATES_WINDOW,
      tool: values.tool ?? null,
      tenant: values.tenant ?? null,
      limit: values.limit ?? DEFAULT_DUPLICATES_LIMIT,
      cursor: values.cursor ?? null,
    },
  };
}

/**
 * The filter as the link typed it, for the form beside a refusal: a window the page does not offer shows as the
 * default, which the reader may change; a typed tool and tenant stay, to correct in place.
 */
export function typedDuplicatesFilterValues(input: RawParams): Pick<DuplicatesQuery, "window" | "tool" | "tenant"> {
  const typed = new Map(groupParams(input).map(([name, values]) => [name, values[0]?.trim() ?? ""]));
  const window = DUPLICATES_WINDOWS.find((w) => w === typed.get("window")) ?? DEFAULT_DUPLICATES_WINDOW;
  return { window, tool: typed.get("tool") || null, tenant: typed.get("tenant") || null };
}

/** A link to the duplicates page with these values; defaults and empty values are left out. */
export function duplicatesHref(values: {
  window?: DuplicatesWindow;
  tool?: string | null;
  tenant?: string | null;
  limit?: number;
  cursor?: string | null;
}): string {
  const query = new URLSearchParams();
  if (values.window && values.window !== DEFAULT_DUPLICATES_WINDOW) query.set("window", values.window);
  if (values.tool) query.set("tool", values.tool);
  if (values.tenant) query.set("tenant", values.tenant);
  if (values.limit !== undefined && values.limit !== DEFAULT_DUPLICATES_LIMIT) query.set("limit", String(values.limit));
  if (values.cursor) query.set("cursor", values.cursor);
  const text = query.toString();
  return text ? `/duplicates?${text}` : "/duplicates";
}
