import { createParser, createSerializer, parseAsStringLiteral } from "nuqs/server";
import {
  booleanRule,
  formatInstant,
  instantRule,
  pageSizeRule,
  printableRule,
  thenRule,
  type FieldRule,
} from "@/lib/url-state/field-rules";

/**
 * The records list's URL fields as the browser reads and writes them: the field rules
 * (list-filters.ts wraps the same rules in zod for the server's strict parsing) and nuqs parsers
 * built on them for `useQueryStates` / `createSerializer`. No zod and no server code: the
 * records and stuck pages' filter bars import this.
 */

/** In the `tool` parameter, this value means "writers that do not record the tool" (tool IS NULL). */
export const UNRECORDED_TOOL = "(unrecorded)";

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 50;

export const PAGE_DIRECTIONS = ["next", "prev"] as const;
export type PageDirection = (typeof PAGE_DIRECTIONS)[number];

/**
 * The stuck list's order: oldest first by default (the claim most at risk first, as the next stuck
 * claim and a bulk plan over the filter take them), newest first on request.
 */
export const LIST_ORDERS = ["oldest", "newest"] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];
export const DEFAULT_STUCK_ORDER: ListOrder = "oldest";

export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const instantField = thenRule(printableRule(40), instantRule);

/** A searchable response field (idem.config.json `tools.<tool>.search`) and the value it must equal. */
export type SearchField = { label: string; value: string };
export const MAX_SEARCH_FIELD_VALUE = 200;

/**
 * `field=<label>:<value>` (`field=receipt:ch_3Mq…`): one parameter of a fixed name, so the API's
 * contract and OpenAPI document stay static while each deployment names its own labels.
 */
const SEARCH_LABEL = "[a-z][a-z0-9_]{0,30}";
const searchFieldRule: FieldRule<SearchField> = thenRule(
  printableRule(240),
  (raw) => {
    const colon = raw.indexOf(":");
    const label = colon < 0 ? "" : raw.slice(0, colon);
    const value = colon < 0 ? "" : raw.slice(colon + 1).trim();
    if (!new RegExp(`^${SEARCH_LABEL}$`).test(label) || value === "")
      return { ok: false, message: "expected <label>:<value>, e.g. receipt:ch_3Mq2x (a label idem.config.json names)" };
    if (value.length > MAX_SEARCH_FIELD_VALUE)
      return { ok: false, message: `the value is at most ${MAX_SEARCH_FIELD_VALUE} characters` };
    return { ok: true, value: { label, value } };
  },
  { type: "string", maxLength: 240, pattern: `^${SEARCH_LABEL}:\\s*\\S` },
);

/** The URL form of a searchable-field filter. */
export function formatSearchField(field: SearchField): string {
  return `${field.label}:${field.value}`;
}

/** Each field's rule on its raw text (the cursor's, dir's and format's are the server's alone). */
export const RECORDS_FIELD_RULES = {
  tenant: printableRule(200),
  subject: printableRule(200),
  tool: printableRule(200),
  status: printableRule(100),
  stuck: booleanRule,
  field: searchFieldRule,
  from: instantField,
  to: instantField,
  limit: pageSizeRule(PAGE_SIZES),
} as const;

// The client's view of the fields: an invalid value reads as absent there; the server page shows
// what was wrong with it.
function fieldParser<T>(rule: FieldRule<T>, serialize: (value: T) => string, eq?: (a: T, b: T) => boolean) {
  return createParser<T>({
    parse: (value) => {
      if (value === "") return null;
      const checked = rule(value);
      return checked.ok ? checked.value : null;
    },
    serialize,
    ...(eq ? { eq } : {}),
  });
}

const sameInstant = (a: Date, b: Date) => a.getTime() === b.getTime();
const CLIENT_CURSOR = /^[A-Za-z0-9_-]{1,1200}$/;

export const recordsSearchParams = {
  tenant: fieldParser(RECORDS_FIELD_RULES.tenant, String),
  subject: fieldParser(RECORDS_FIELD_RULES.subject, String),
  tool: fieldParser(RECORDS_FIELD_RULES.tool, String),
  status: fieldParser(RECORDS_FIELD_RULES.status, String),
  stuck: fieldParser(RECORDS_FIELD_RULES.stuck, String).withDefault(false),
  field: fieldParser(
    RECORDS_FIELD_RULES.field,
    formatSearchField,
    (a, b) => a.label === b.label && a.value === b.value,
  ),
  from: fieldParser(RECORDS_FIELD_RULES.from, formatInstant, sameInstant),
  to: fieldParser(RECORDS_FIELD_RULES.to, formatInstant, sameInstant),
  // Opaque to the client: it only ever copies cursors the server handed out.
  cursor: fieldParser<string>(
    (raw) => (CLIENT_CURSOR.test(raw) ? { ok: true, value: raw } : { ok: false, message: "not a cursor" }),
    String,
  ),
  dir: parseAsStringLiteral(PAGE_DIRECTIONS).withDefault("next"),
  limit: fieldParser(RECORDS_FIELD_RULES.limit, String).withDefault(DEFAULT_PAGE_SIZE),
};

/** `serializeRecordsParams("/records", {...})` → a link to that view of the list. */
export const serializeRecordsParams = createSerializer(recordsSearchParams);
