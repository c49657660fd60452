import { createParser, createSerializer, parseAsStringLiteral } from "nuqs/server";
import { z } from "zod";
import {
  cursorField,
  pageSizeField,
  parseStrictParams,
  printableText,
  type ParseResult,
  type RawParams,
  type UnknownParams,
} from "@/lib/url-state/strict-params";
import { formatInstant, instantSchema, timeRangeProblem } from "@/lib/url-state/time-range";
import { decodeCursor, type RecordsCursor } from "@/lib/records/list-cursor";
import { quoteInput } from "@/lib/text/quote-input";

/**
 * THE parser of the records list's URL state, shared by the server page, the client table and
 * the /api/v1/records routes (tablecn's pattern): one set of field rules, exposed two ways —
 * as nuqs parsers for `useQueryStates` / `createSerializer`, and as a strict zod schema that
 * names every bad or unknown parameter. Imported by client components: no server code here.
 */

/** In the `tool` parameter, this value means "writers that do not record the tool" (tool IS NULL). */
export const UNRECORDED_TOOL = "(unrecorded)";

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 50;

export const PAGE_DIRECTIONS = ["next", "prev"] as const;
export type PageDirection = (typeof PAGE_DIRECTIONS)[number];

export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What narrows the list; the export takes exactly these. */
export const FILTER_PARAMS = ["tenant", "subject", "tool", "status", "stuck", "from", "to"] as const;
/** Where in the filtered list a page starts. */
export const PAGING_PARAMS = ["cursor", "dir", "limit"] as const;
export const LIST_PARAMS = [...FILTER_PARAMS, ...PAGING_PARAMS] as const;
export const EXPORT_PARAMS = [...FILTER_PARAMS, "format"] as const;

export type RecordsFilter = {
  tenant: string | null;
  /** The authenticated caller the writer recorded, matched exactly (subjects are identifiers, not text to search). */
  subject: string | null;
  /** A tool name, UNRECORDED_TOOL, or null for every tool. */
  tool: string | null;
  /** Any text: writers may write statuses other than in_progress / completed. */
  status: string | null;
  /** in_progress for longer than the tool's stuckAfter threshold. */
  stuck: boolean;
  /** Inclusive lower bound on created_at. */
  from: Date | null;
  /** Exclusive upper bound on created_at. */
  to: Date | null;
};

export type RecordsQuery = RecordsFilter & {
  cursor: RecordsCursor | null;
  dir: PageDirection;
  limit: PageSize;
};

export const EMPTY_FILTER: RecordsFilter = {
  tenant: null,
  subject: null,
  tool: null,
  status: null,
  stuck: false,
  from: null,
  to: null,
};

// ---------------------------------------------------------------------------------------------
// Field rules (each takes the raw text of one parameter)

const instantField = printableText(40).pipe(instantSchema);

const FIELD_SCHEMAS = {
  tenant: printableText(200),
  subject: printableText(200),
  tool: printableText(200),
  status: printableText(100),
  stuck: z
    .enum(["true", "false"], { error: (issue) => `expected true or false, got ${quoteInput(issue.input)}` })
    .transform((v) => v === "true"),
  from: instantField,
  to: instantField,
  cursor: cursorField(
    decodeCursor,
    "not a cursor this console issued (copy the whole link, or drop the cursor to start at the newest record)",
  ),
  dir: z.enum(PAGE_DIRECTIONS, { error: (issue) => `expected next or prev, got ${quoteInput(issue.input)}` }),
  limit: pageSizeField(PAGE_SIZES),
  format: z.enum(EXPORT_FORMATS, { error: (issue) => `expected csv or json, got ${quoteInput(issue.input)}` }),
} as const;

// ---------------------------------------------------------------------------------------------
// nuqs parsers: the client's view of the same fields (an invalid value reads as absent there;
// the server page shows what was wrong with it).

function fieldParser<T>(schema: z.ZodType<T, string>, serialize: (value: T) => string, eq?: (a: T, b: T) => boolean) {
  return createParser<T>({
    parse: (value) => {
      if (value === "") return null;
      const result = schema.safeParse(value);
      return result.success ? result.data : null;
    },
    serialize,
    ...(eq ? { eq } : {}),
  });
}

const sameInstant = (a: Date, b: Date) => a.getTime() === b.getTime();

export const recordsSearchParams = {
  tenant: fieldParser(FIELD_SCHEMAS.tenant, String),
  subject: fieldParser(FIELD_SCHEMAS.subject, String),
  tool: fieldParser(FIELD_SCHEMAS.tool, String),
  status: fieldParser(FIELD_SCHEMAS.status, String),
  stuck: fieldParser(FIELD_SCHEMAS.stuck, String).withDefault(false),
  from: fieldParser(FIELD_SCHEMAS.from, formatInstant, sameInstant),
  to: fieldParser(FIELD_SCHEMAS.to, formatInstant, sameInstant),
  // Opaque to the client: it only ever copies cursors the server handed out.
  cursor: fieldParser(z.string().regex(/^[A-Za-z0-9_-]{1,1200}$/), String),
  dir: parseAsStringLiteral(PAGE_DIRECTIONS).withDefault("next"),
  limit: fieldParser(FIELD_SCHEMAS.limit, String).withDefault(DEFAULT_PAGE_SIZE),
};

/** `serializeRecordsParams("/records", {...})` → a link to that view of the list. */
export const serializeRecordsParams = createSerializer(recordsSearchParams);

export type PageLinks = { first: string; next: string | null; prev: string | null };

/** Query strings of the first page and the neighbouring pages of a keyset-paged view of the list. */
export function pageLinks(
  base: ReturnType<typeof filterToParams> & { limit: PageSize },
  page: { nextCursor: string | null; prevCursor: string | null },
): PageLinks {
  return {
    first: serializeRecordsParams(base),
    next: page.nextCursor ? serializeRecordsParams({ ...base, cursor: page.nextCursor, dir: "next" }) : null,
    prev: page.prevCursor ? serializeRecordsParams({ ...base, cursor: page.prevCursor, dir: "prev" }) : null,
  };
}

/** The URL values of a filter, for links (chips, pager, export). */
export function filterToParams(filter: RecordsFilter) {
  return {
    tenant: filter.tenant,
    subject: filter.subject,
    tool: filter.tool,
    status: filter.status,
    stuck: filter.stuck,
    from: filter.from,
    to: filter.to,
  };
}

// ---------------------------------------------------------------------------------------------
// Server-side parsing: every problem named, nothing guessed.

function parseParams<K extends keyof typeof FIELD_SCHEMAS>(
  input: RawParams,
  accepted: readonly K[],
  unknownParams: UnknownParams,
  unknownHint: string,
): ParseResult<{ [P in K]?: z.output<(typeof FIELD_SCHEMAS)[P]> }> {
  const { values, problems } = parseStrictParams(input, FIELD_SCHEMAS, accepted, { unknownParams, unknownHint });
  const range = timeRangeProblem(values as { from?: Date; to?: Date });
  if (range) problems.push(range);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: values };
}

function filterFrom(values: Partial<Record<(typeof FILTER_PARAMS)[number], unknown>>): RecordsFilter {
  return {
    tenant: (values.tenant as string | undefined) ?? null,
    subject: (values.subject as string | undefined) ?? null,
    tool: (values.tool as string | undefined) ?? null,
    status: (values.status as string | undefined) ?? null,
    stuck: (values.stuck as boolean | undefined) ?? false,
    from: (values.from as Date | undefined) ?? null,
    to: (values.to as Date | undefined) ?? null,
  };
}

/**
 * The list's query from a URL. The API rejects unknown parameters (a typo must not silently
 * widen the result); the page ignores them (links from elsewhere may carry tracking noise).
 */
export function parseRecordsQuery(
  input: RawParams,
  options: { unknownParams: UnknownParams },
): ParseResult<RecordsQuery> {
  const parsed = parseParams(
    input,
    LIST_PARAMS,
    options.unknownParams,
    `the records list takes ${LIST_PARAMS.join(", ")}`,
  );
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (v.dir === "prev" && v.cursor === undefined) {
    return {
      ok: false,
      problems: [{ param: "dir", message: "dir: prev needs a cursor (drop it to start at the newest record)" }],
    };
  }
  return {
    ok: true,
    value: { ...filterFrom(v), cursor: v.cursor ?? null, dir: v.dir ?? "next", limit: v.limit ?? DEFAULT_PAGE_SIZE },
  };
}

/** The export's query: the list's filter and a format, never a cursor (an export starts at the newest row). */
export function parseRecordsExportQuery(
  input: RawParams,
): ParseResult<{ filter: RecordsFilter; format: ExportFormat }> {
  const parsed = parseParams(
    input,
    EXPORT_PARAMS,
    "reject",
    `the export takes ${EXPORT_PARAMS.join(", ")} (it always starts at the newest matching record, so no cursor, dir or limit)`,
  );
  if (!parsed.ok) return parsed;
  if (parsed.value.format === undefined)
    return { ok: false, problems: [{ param: "format", message: "format: required, csv or json" }] };
  return { ok: true, value: { filter: filterFrom(parsed.value), format: parsed.value.format } };
}

/** Human words for a filter: "tenant acme, status failed, created from … to …". */
export function describeFilter(filter: RecordsFilter): string {
  const parts: string[] = [];
  if (filter.tenant !== null) parts.push(`tenant ${filter.tenant}`);
  if (filter.subject !== null) parts.push(`subject ${filter.subject}`);
  if (filter.tool !== null) parts.push(filter.tool === UNRECORDED_TOOL ? "tool unrecorded" : `tool ${filter.tool}`);
  if (filter.status !== null) parts.push(`status ${filter.status}`);
  if (filter.stuck) parts.push("stuck only");
  if (filter.from) parts.push(`created from ${formatInstant(filter.from)}`);
  if (filter.to) parts.push(`created before ${formatInstant(filter.to)}`);
  return parts.join(", ");
}

export function isFilterEmpty(filter: RecordsFilter): boolean {
  return describeFilter(filter) === "";
}
