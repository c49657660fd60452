import { z } from "zod";
import {
  DEFAULT_PAGE_SIZE,
  EXPORT_FORMATS,
  PAGE_DIRECTIONS,
  RECORDS_FIELD_RULES,
  serializeRecordsParams,
  type SearchField,
  UNRECORDED_TOOL,
  type ExportFormat,
  type PageDirection,
  type PageSize,
} from "@/lib/records/records-search-params";
import {
  cursorField,
  fieldSchema,
  parseStrictParams,
  type ParseResult,
  type RawParams,
  type UnknownParams,
} from "@/lib/url-state/strict-params";
import { formatInstant, timeRangeProblem } from "@/lib/url-state/time-range";
import { decodeCursor, type RecordsCursor } from "@/lib/records/list-cursor";
import { quoteInput } from "@/lib/text/quote-input";
import { maskedValueClass, MASKED_VALUE_MESSAGE } from "@/lib/privacy/masked-value";

/**
 * THE parser of the records list's URL state, shared by the server page and the /api/v1/records
 * routes (tablecn's pattern): one set of field rules (records-search-params.ts), exposed two
 * ways — as nuqs parsers for the client's `useQueryStates` / `createSerializer` there, and here
 * as strict zod schemas that name every bad or unknown parameter. No server code here either,
 * but zod: client components import records-search-params.ts instead.
 */

export * from "@/lib/records/records-search-params";

export const FILTER_PARAMS = ["tenant", "subject", "tool", "status", "stuck", "field", "from", "to"] as const;
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
  /** A searchable response field equal to a value (`field=receipt:ch_…`); rows with no recorded tool never match. */
  field: SearchField | null;
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
  field: null,
  from: null,
  to: null,
};

// ---------------------------------------------------------------------------------------------
// Field rules (each takes the raw text of one parameter)

/** Each parameter's schema: the parser reads with it, the OpenAPI document shows it (lib/api/contracts/records.ts). */
export const RECORDS_QUERY_FIELDS = {
  tenant: fieldSchema(RECORDS_FIELD_RULES.tenant),
  subject: fieldSchema(RECORDS_FIELD_RULES.subject),
  tool: fieldSchema(RECORDS_FIELD_RULES.tool),
  status: fieldSchema(RECORDS_FIELD_RULES.status),
  stuck: fieldSchema(RECORDS_FIELD_RULES.stuck),
  // Never an oracle (issue #28 §2): a value of a class every page masks is refused, for every role.
  field: fieldSchema(RECORDS_FIELD_RULES.field).refine(
    (field) => maskedValueClass(field.value) === null,
    `${MASKED_VALUE_MESSAGE} (an e-mail address or a card number is masked on every page)`,
  ),
  from: fieldSchema(RECORDS_FIELD_RULES.from),
  to: fieldSchema(RECORDS_FIELD_RULES.to),
  cursor: cursorField(
    decodeCursor,
    "not a cursor this console issued (copy the whole link, or drop the cursor to start at the newest record)",
  ),
  dir: z.enum(PAGE_DIRECTIONS, { error: (issue) => `expected next or prev, got ${quoteInput(issue.input)}` }),
  limit: fieldSchema(RECORDS_FIELD_RULES.limit),
  format: z.enum(EXPORT_FORMATS, { error: (issue) => `expected csv or json, got ${quoteInput(issue.input)}` }),
} as const;

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
    field: filter.field,
    from: filter.from,
    to: filter.to,
  };
}

// ---------------------------------------------------------------------------------------------
// Server-side parsing: every problem named, nothing guessed.

function parseParams<K extends keyof typeof RECORDS_QUERY_FIELDS>(
  input: RawParams,
  accepted: readonly K[],
  unknownParams: UnknownParams,
  unknownHint: string,
  searchLabels: readonly string[],
): ParseResult<{ [P in K]?: z.output<(typeof RECORDS_QUERY_FIELDS)[P]> }> {
  const { values, problems } = parseStrictParams(input, RECORDS_QUERY_FIELDS, accepted, { unknownParams, unknownHint });
  const range = timeRangeProblem(values as { from?: Date; to?: Date });
  if (range) problems.push(range);
  const field = (values as { field?: SearchField }).field;
  if (field && !searchLabels.includes(field.label))
    problems.push({ param: "field", message: searchLabelProblem(field.label, searchLabels) });
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
    field: (values.field as SearchField | undefined) ?? null,
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
  options: { unknownParams: UnknownParams; searchLabels?: readonly string[] },
): ParseResult<RecordsQuery> {
  const parsed = parseParams(
    input,
    LIST_PARAMS,
    options.unknownParams,
    `the records list takes ${LIST_PARAMS.join(", ")}`,
    options.searchLabels ?? [],
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
  searchLabels: readonly string[] = [],
): ParseResult<{ filter: RecordsFilter; format: ExportFormat }> {
  const parsed = parseParams(
    input,
    EXPORT_PARAMS,
    "reject",
    `the export takes ${EXPORT_PARAMS.join(", ")} (it always starts at the newest matching record, so no cursor, dir or limit)`,
    searchLabels,
  );
  if (!parsed.ok) return parsed;
  if (parsed.value.format === undefined)
    return { ok: false, problems: [{ param: "format", message: "format: required, csv or json" }] };
  return { ok: true, value: { filter: filterFrom(parsed.value), format: parsed.value.format } };
}

function searchLabelProblem(label: string, labels: readonly string[]): string {
  return labels.length === 0
    ? `field: no searchable field is configured (idem.config.json tools.<tool>.search), so ${quoteInput(label)} names none`
    : `field: ${quoteInput(label)} is not a searchable field; configured: ${labels.join(", ")}`;
}

/** Human words for a filter: "tenant acme, status failed, created from … to …". */
export function describeFilter(filter: RecordsFilter): string {
  const parts: string[] = [];
  if (filter.tenant !== null) parts.push(`tenant ${filter.tenant}`);
  if (filter.subject !== null) parts.push(`subject ${filter.subject}`);
  if (filter.tool !== null) parts.push(filter.tool === UNRECORDED_TOOL ? "tool unrecorded" : `tool ${filter.tool}`);
  if (filter.status !== null) parts.push(`status ${filter.status}`);
  if (filter.stuck) parts.push("stuck only");
  if (filter.field) parts.push(`${filter.field.label} ${filter.field.value}`);
  if (filter.from) parts.push(`created from ${formatInstant(filter.from)}`);
  if (filter.to) parts.push(`created before ${formatInstant(filter.to)}`);
  return parts.join(", ");
}

/** How many filters are set (from and to count apart): the "Filters (n)" a phone's folded form shows. */
export function activeFilterCount(filter: RecordsFilter): number {
  const { tenant, subject, tool, status, stuck, field, from, to } = filter;
  return [tenant, subject, tool, status, field, from, to].filter((value) => value !== null).length + (stuck ? 1 : 0);
}

export function isFilterEmpty(filter: RecordsFilter): boolean {
  return describeFilter(filter) === "";
}
