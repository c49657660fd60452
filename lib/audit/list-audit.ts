import "server-only";
import { auditSubject, type AuditSubject } from "./audit-subject";
import { z } from "zod";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { exactTimeSql, parseExactTime } from "@/lib/format/exact-time";
import {
  cursorField,
  groupParams,
  pageSizeField,
  parseStrictParams,
  printableText,
  type ParamProblem,
  type ParseResult,
  type RawParams,
  type UnknownParams,
} from "@/lib/url-state/strict-params";
import { instantSchema, timeRangeProblem } from "@/lib/url-state/time-range";
import { formatInstantShort } from "@/lib/url-state/field-rules";
import { redactJson, type Redaction } from "@/lib/privacy/redact";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { decodeBase64Url, encodeBase64Url } from "@/lib/text/base64url";
import { AUDIT_PAGE_SIZES } from "@/lib/audit/audit-search-params";

export const DEFAULT_AUDIT_PAGE_SIZE = 50;

export const AUDIT_FILTER_PARAMS = ["id", "actor", "action", "key", "tenant", "from", "to"] as const;
export const AUDIT_PARAMS = [...AUDIT_FILTER_PARAMS, "cursor", "limit"] as const;

/** Where a page starts: the entry after (at, id), newest first. `at` keeps all six microsecond digits. */
export type AuditCursor = { at: string; id: string };

export type AuditQuery = {
  /** One entry by its id (what a confirmation links to). */
  id: string | null;
  /** Start of the actor label: `system:` for every job, `operator@demo.test` for one person. */
  actor: string | null;
  /** Exact action, e.g. record.release. */
  action: string | null;
  /** A whole key or the start of one (a 12-hex ref, as customers paste it). */
  key: string | null;
  tenant: string | null;
  /** Inclusive lower bound on `at`. */
  from: Date | null;
  /** Exclusive upper bound on `at`. */
  to: Date | null;
  cursor: AuditCursor | null;
  limit: number;
};

export type AuditEntryView = {
  id: string;
  at: string;
  actor: string;
  actorRole: string;
  action: string;
  key: string | null;
  ref: string | null;
  /** Whether the record still exists (a released or trimmed one does not): link it, or show the key. */
  recordExists: boolean;
  tenant: string | null;
  reason: string | null;
  before: unknown;
  after: unknown;
  evidence: unknown;
  /** JSONPaths masked in before/after/evidence (masked for every role: docs/architecture.md#roles-and-permissions). */
  redactedPaths: string[];
  /** What a non-record entry is about, in a few words (audit-subject.ts). */
  about: AuditSubject | null;
  /** The entry's place in the hash chain: sha256 hex over its content and the previous entry's hash (docs/audit-chain.md). */
  hash: string;
};

export type AuditPage = {
  entries: AuditEntryView[];
  /** Older entries follow: pass as `cursor`. */
  nextCursor: string | null;
  generatedAt: string;
};

// ---------------------------------------------------------------------------------------------
// The query from a URL (the page and GET /api/v1/audit)

// Values arrive trimmed (parseStrictParams with trim). The OpenAPI document shows these schemas.
export const AUDIT_QUERY_FIELDS = {
  id: z.string().regex(/^$|^\d{1,19}$/, "expected an audit entry's id, a whole number"),
  actor: printableText(200),
  action: z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, "expected an action name like record.release"),
  // Hex keys are lowercase (hexdigest); other writers' keys are matched as written.
  key: printableText(255).transform((v) => (/^[0-9a-fA-F]+$/.test(v) ? v.toLowerCase() : v)),
  tenant: printableText(200),
  from: instantSchema,
  to: instantSchema,
  cursor: cursorField(decodeAuditCursor, "not a cursor this console issued (drop it to start at the newest entry)"),
  limit: pageSizeField(AUDIT_PAGE_SIZES),
} as const;

/**
 * Reads the audit list's query. The API rejects unknown parameters (a typo must not silently
 * widen the result); the page ignores them. An empty value means "no filter" (an empty form field).
 */
export function parseAuditQuery(input: RawParams, options: { unknownParams: UnknownParams }): ParseResult<AuditQuery> {
  const { values, problems } = parseStrictParams(input, AUDIT_QUERY_FIELDS, AUDIT_PARAMS, {
    unknownParams: options.unknownParams,
    unknownHint: `the audit log takes ${AUDIT_PARAMS.join(", ")}`,
    trim: true,
  });
  const { from, to } = values;
  const range = timeRangeProblem({ from, to });
  if (range) problems.push(range);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      id: values.id || null,
      actor: values.actor || null,
      action: values.action ?? null,
      key: values.key || null,
      tenant: values.tenant || null,
      from: from ?? null,
      to: to ?? null,
      cursor: values.cursor ?? null,
      limit: values.limit ?? DEFAULT_AUDIT_PAGE_SIZE,
    },
  };
}

const MAX_CURSOR_LENGTH = 100;

export function encodeAuditCursor(cursor: AuditCursor): string {
  return encodeBase64Url(`${cursor.at}|${cursor.id}`);
}

export function decodeAuditCursor(token: string): AuditCursor | null {
  const [at, id, ...rest] = decodeBase64Url(token, MAX_CURSOR_LENGTH)?.split("|") ?? [];
  const exactAt = at === undefined ? null : parseExactTime(at);
  if (rest.length > 0 || exactAt === null || !id || !/^\d{1,19}$/.test(id)) return null;
  return { at: exactAt, id };
}

// ---------------------------------------------------------------------------------------------
// The listing

type AuditRow = {
  id: bigint;
  at: Date;
  at_exact: string;
  actor: string;
  actor_role: string;
  action: string;
  key: string | null;
  tenant: string | null;
  reason: string | null;
  before: unknown;
  after: unknown;
  evidence: unknown;
  record_exists: boolean;
  hash: string;
};

/** `LIKE 'text%'` with the text's own % and _ taken literally. */
function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of the audit log, newest first, keyset-paged on (at, id). Tenant-limited readers see
 * only entries of their tenants (entries about no tenant — users, tokens, retention batches —
 * are not theirs either). Every reader gets before/after/evidence redacted with the configured
 * JSONPaths, as they get stored responses: a receipt in the evidence is payment data too.
 */
export async function listAudit(
  db: Db,
  actor: Actor,
  query: AuditQuery,
  options: { redact: Redaction | readonly string[] },
): Promise<AuditPage> {
  const conditions: Prisma.Sql[] = [...actorTenantScope(actor).conditions(Prisma.sql`a.tenant`)];
  // Prefix on the start of the label, so `system:` finds every job and `omar@` one person.
  if (query.id !== null) conditions.push(Prisma.sql`a.id = ${query.id}::bigint`);
  if (query.actor !== null) conditions.push(Prisma.sql`a.actor LIKE ${prefixPattern(query.actor)}`);
  if (query.action !== null) conditions.push(Prisma.sql`a.action = ${query.action}`);
  // key is COLLATE "C": the prefix LIKE is a range on audit_log_key_at_idx.
  if (query.key !== null) conditions.push(Prisma.sql`a.key LIKE ${prefixPattern(query.key)}`);
  if (query.tenant !== null) conditions.push(Prisma.sql`a.tenant = ${query.tenant}`);
  if (query.from) conditions.push(Prisma.sql`a.at >= ${query.from}::timestamptz`);
  if (query.to) conditions.push(Prisma.sql`a.at < ${query.to}::timestamptz`);
  if (query.cursor) {
    // The first term is an index range on audit_log_at_idx; the row comparison breaks ties.
    conditions.push(
      Prisma.sql`a.at <= ${query.cursor.at}::timestamptz AND (a.at, a.id) < (${query.cursor.at}::timestamptz, ${query.cursor.id}::bigint)`,
    );
  }
  const where = conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
  const rows = await db.$queryRaw<AuditRow[]>`
    SELECT a.id, a.at, ${Prisma.raw(exactTimeSql("a.at"))} AS at_exact,
           a.actor, a.actor_role, a.action, a.key, a.tenant, a.reason, a.before, a.after, a.evidence, a.hash,
           (a.key IS NOT NULL AND EXISTS (SELECT 1 FROM idempotency i WHERE i.key = a.key)) AS record_exists
    FROM audit_log a ${where}
    ORDER BY a.at DESC, a.id DESC LIMIT ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((row) => toView(row, options.redact)),
    nextCursor:
      rows.length > query.limit && last ? encodeAuditCursor({ at: last.at_exact, id: last.id.toString() }) : null,
    generatedAt: new Date().toISOString(),
  };
}

function toView(row: AuditRow, redactPaths: Redaction | readonly string[]): AuditEntryView {
  const redactedPaths = new Set<string>();
  const shown = (part: "before" | "after" | "evidence", value: unknown) => {
    if (value === null) return value;
    const result = redactJson(value, redactPaths);
    // Name the part too: "$['evidence']['receipt']['card']", not just "$['receipt']['card']".
    result.redactedPaths.forEach((p) => redactedPaths.add(p.replace(/^\$/, `$['${part}']`)));
    return result.value;
  };
  const before = shown("before", row.before);
  const after = shown("after", row.after);
  const evidence = shown("evidence", row.evidence);
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    actor: row.actor,
    actorRole: row.actor_role,
    action: row.action,
    key: row.key,
    ref: row.key === null ? null : row.key.slice(0, 12),
    recordExists: row.record_exists,
    tenant: row.tenant,
    reason: row.reason,
    before,
    after,
    evidence,
    redactedPaths: [...redactedPaths].sort(),
    about: row.key === null ? auditSubject(row.action, { before, after, evidence }) : null,
    hash: row.hash,
  };
}

/** Actions that occur in the entries the reader may see, for the filter's suggestions. */
export async function listAuditActions(db: Db, actor: Actor): Promise<string[]> {
  const rows = await db.$queryRaw<
    { action: string }[]
  >`SELECT DISTINCT action FROM audit_log ${actorTenantScope(actor).whereClause()} ORDER BY action LIMIT 200`;
  return rows.map((r) => r.action);
}

/**
 * The filter as the link typed it, for the form beside a refusal: the reader corrects the bad value in place.
 * A refused page size or cursor is left out, so applying the form does not carry it again.
 */
export function typedAuditFilterValues(
  input: RawParams,
  problems: readonly ParamProblem[],
): Record<(typeof AUDIT_FILTER_PARAMS)[number], string> & { limit: string } {
  const typed = new Map(groupParams(input).map(([name, values]) => [name, values[0] ?? ""]));
  const value = (name: string) => typed.get(name) ?? "";
  return {
    id: "",
    actor: value("actor"),
    action: value("action"),
    key: value("key"),
    tenant: value("tenant"),
    from: value("from"),
    to: value("to"),
    limit: problems.some((p) => p.param === "limit") ? "" : value("limit"),
  };
}

/** A query's filter as URL values, for the form and links. */
export function auditFilterValues(
  query: AuditQuery,
): Record<(typeof AUDIT_FILTER_PARAMS)[number], string> & { limit: string } {
  return {
    id: query.id ?? "",
    actor: query.actor ?? "",
    action: query.action ?? "",
    key: query.key ?? "",
    tenant: query.tenant ?? "",
    // As typed in a field (2026-11-29, not 2026-11-29T00:00:00Z): the form's fields are sized for it.
    from: query.from ? formatInstantShort(query.from) : "",
    to: query.to ? formatInstantShort(query.to) : "",
    limit: String(query.limit),
  };
}
