import { redactJson } from "@/lib/privacy/redact";

/**
 * The rules of `tools.<tool>.search` (issue #28 §1–2): a label support may search by, naming one
 * simple JSONPath into the stored response. A path the configuration redacts can never be made
 * searchable: a search that finds a record by a value would confirm a value the page masks.
 */

/** A label: lower-case, short, safe in a URL and an index name. */
export const SEARCH_LABEL = /^[a-z][a-z0-9_]{0,30}$/;

// The records list's and the export's own parameters (lib/records/list-filters.ts LIST_PARAMS,
// EXPORT_PARAMS, tests/unit/searchable-fields-config.test.ts holds them equal) and the lookup's `q`:
// a label reads as `receipt: ch_…` beside them, so it may not be mistaken for one.
export const RESERVED_SEARCH_LABELS = [
  "tenant",
  "subject",
  "tool",
  "status",
  "stuck",
  "from",
  "to",
  "field",
  "cursor",
  "dir",
  "limit",
  "format",
  "q",
  "key",
  "ref",
] as const;

/** `$.a.b` or `$.a[0].b`: names and array indexes only, nothing that matches more than one value. */
const SIMPLE_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]{0,63}|\[\d{1,3}\]){1,8}$/;
const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g;

export type PathSegment = string | number;

/** The segments of a simple path, or a message naming it. */
export function parseSearchPath(path: string): { ok: true; segments: PathSegment[] } | { ok: false; message: string } {
  if (!SIMPLE_PATH.test(path))
    return {
      ok: false,
      message: `${JSON.stringify(path)} is not a simple JSONPath: expected names and array indexes like $.id or $.charges[0].id (no wildcards, filters, slices or ..)`,
    };
  const segments: PathSegment[] = [];
  for (const match of path.matchAll(SEGMENT)) segments.push(match[1] !== undefined ? match[1] : Number(match[2]));
  return { ok: true, segments };
}

/** The path as jsonpath-plus names a match: `$['a'][0]['b']`. */
export function normalizedPath(segments: readonly PathSegment[]): string {
  return `$${segments.map((s) => (typeof s === "number" ? `[${s}]` : `['${s}']`)).join("")}`;
}

/**
 * The redaction rule that masks this path or one of its ancestors, or null. Uses the masking's own
 * JSONPath engine on a document holding exactly this path, so `$..card`, `$.*.email` and
 * `$.customer` (an ancestor) are judged as the record page would judge them.
 */
export function redactingRule(segments: readonly PathSegment[], redact: readonly string[]): string | null {
  const wanted = normalizedPath(segments);
  for (const rule of redact) {
    const { redactedPaths } = redactJson(documentAlong(segments), {
      paths: [rule],
      values: { email: false, cardNumbers: false },
    });
    if (redactedPaths.some((masked) => wanted === masked || wanted.startsWith(`${masked}[`))) return rule;
  }
  return null;
}

function documentAlong(segments: readonly PathSegment[]): unknown {
  let value: unknown = "value";
  for (const segment of [...segments].reverse()) {
    if (typeof segment === "number") {
      const array: unknown[] = new Array(segment + 1).fill(null);
      array[segment] = value;
      value = array;
    } else value = { [segment]: value };
  }
  return value;
}
