import "server-only";
import { refOf } from "idem-guard";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import { exactTimeSql } from "@/lib/format/exact-time";
import { encodeCursor, type RecordsCursor } from "@/lib/records/list-cursor";
import {
  UNRECORDED_TOOL,
  type PageDirection,
  type RecordsFilter,
  type RecordsQuery,
  type ListOrder,
} from "@/lib/records/list-filters";
import { isStuck, stuckAfterMs, toolsByOwnThreshold } from "@/lib/records/stuck-threshold";
import type { RecordSummary } from "@/lib/records/lookup";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { specsOfLabel, toolLiteral } from "@/lib/config/search-specs";

/**
 * One row of the records list: the record summary look-ups show (no response: it may hold
 * personal data), plus the stuck verdict and the threshold it used (the tool's stuckAfter, or the default).
 */
export type RecordListItem = RecordSummary & { stuck: boolean; stuckAfterMs: number };

export type RecordsPage = {
  records: RecordListItem[];
  /** Older records follow; pass as `cursor` with `dir=next`. */
  nextCursor: string | null;
  /** Newer records precede; pass as `cursor` with `dir=prev`. null on the first page. */
  prevCursor: string | null;
};

/** What the database hands back for one row; created_at twice, once with all six microsecond digits. */
export type RecordRow = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  created_at: Date;
  created_at_exact: string;
  updated_at: Date | null;
};

/**
 * The conditions of a filter (ANDed), always limited to the actor's tenants: rows of other
 * tenants simply do not exist for a tenant-limited actor, whatever the filter says.
 */
export function recordsConditions(actor: Actor, filter: RecordsFilter, config: IdemConfig, now: Date): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [...actorTenantScope(actor).conditions()];
  if (filter.tenant !== null) conditions.push(Prisma.sql`tenant = ${filter.tenant}`);
  // Exact: the subject index (subject, created_at, key) serves it as an index range in list order.
  if (filter.subject !== null) conditions.push(Prisma.sql`subject = ${filter.subject}`);
  if (filter.tool === UNRECORDED_TOOL) conditions.push(Prisma.sql`tool IS NULL`);
  else if (filter.tool !== null) conditions.push(Prisma.sql`tool = ${filter.tool}`);
  if (filter.status !== null) conditions.push(Prisma.sql`status = ${filter.status}`);
  if (filter.stuck) conditions.push(stuckCondition(config, now));
  if (filter.field) conditions.push(searchFieldCondition(config, filter.field));
  if (filter.from) conditions.push(Prisma.sql`created_at >= ${filter.from}::timestamptz`);
  if (filter.to) conditions.push(Prisma.sql`created_at < ${filter.to}::timestamptz`);
  return conditions;
}

export function whereClause(conditions: Prisma.Sql[]): Prisma.Sql {
  return conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;
}

/**
 * A searchable field equal to a value: one branch per tool that configures the label, each the
 * expression and predicate of that tool's index (`idem db index`), so each is an index scan. A label
 * no tool configures (the parser refuses it first) matches nothing rather than everything.
 */
export function searchFieldCondition(config: IdemConfig, field: { label: string; value: string }): Prisma.Sql {
  const branches = specsOfLabel(config, field.label).map(
    (spec) =>
      Prisma.sql`(tool = ${Prisma.raw(toolLiteral(spec.tool))} AND ${Prisma.raw(spec.expression)} = ${field.value}
        AND jsonb_typeof(response #> ${Prisma.raw(spec.pathLiteral)}) IN ('string', 'number'))`,
  );
  return branches.length > 0 ? Prisma.sql`(${Prisma.join(branches, " OR ")})` : Prisma.sql`FALSE`;
}

/**
 * "Stuck" = in_progress for longer than the row's tool's threshold. Thresholds are per tool, so
 * this is an OR: one branch per distinct configured threshold, one for every other tool (and
 * unrecorded ones) at the default. The leading `created_at < now - shortest` gives the planner
 * an index range on the partial `status <> 'completed'` index (which `status = 'in_progress'`
 * implies), so the branches only filter rows that are old enough for at least one of them.
 */
export function stuckCondition(config: IdemConfig, now: Date): Prisma.Sql {
  const cutoff = (ms: number) => new Date(now.getTime() - ms);
  const byThreshold = toolsByOwnThreshold(config);
  const special = [...byThreshold.values()].flat();
  const shortest = Math.min(config.defaultStuckAfter, ...byThreshold.keys());
  const branches = [...byThreshold].map(
    ([ms, tools]) => Prisma.sql`(tool = ANY(${tools}::text[]) AND created_at < ${cutoff(ms)}::timestamptz)`,
  );
  branches.push(
    special.length > 0
      ? Prisma.sql`((tool IS NULL OR NOT (tool = ANY(${special}::text[]))) AND created_at < ${cutoff(config.defaultStuckAfter)}::timestamptz)`
      : Prisma.sql`created_at < ${cutoff(config.defaultStuckAfter)}::timestamptz`,
  );
  return Prisma.sql`(status = 'in_progress' AND created_at < ${cutoff(shortest)}::timestamptz AND (${Prisma.join(branches, " OR ")}))`;
}

/** The list's columns: created_at twice, once with all six microsecond digits (the cursor's). */
const LIST_COLUMNS = Prisma.sql`key, tenant, subject, tool, status, created_at, updated_at,
  ${Prisma.raw(exactTimeSql("created_at"))} AS created_at_exact`;

/** One keyset step of the records list (keysetStatement), as the list's rows. */
export async function fetchRecordRows(
  db: Db,
  conditions: Prisma.Sql[],
  position: KeysetPosition,
  take: number,
): Promise<RecordRow[]> {
  // On the client's pool (lib/db/raw-query.ts): every list page is this statement.
  return rawQuery<RecordRow>(db, keysetStatement(LIST_COLUMNS, conditions, position, take));
}

export type KeysetPosition = { cursor: RecordsCursor | null; dir: PageDirection; order?: ListOrder };

/**
 * One keyset step: up to `take` rows after (`next`) or before (`prev`) the cursor in the list's
 * order — newest first (the records list), or oldest first (the stuck list's default). Never
 * OFFSET: the (created_at, key) row comparison is an index condition on
 * idempotency_created_at_key_idx, as fast 100,000 rows deep as on the first page.
 */
export function keysetStatement(
  columns: Prisma.Sql,
  conditions: Prisma.Sql[],
  position: KeysetPosition,
  take: number,
): Prisma.Sql {
  const { cursor, dir } = position;
  // Reading towards older rows: `next` in newest-first order, `prev` in oldest-first order.
  const descending = (dir === "next") === ((position.order ?? "newest") === "newest");
  const keyset = cursor
    ? descending
      ? Prisma.sql`(created_at, key) < (${cursor.createdAt}::timestamptz, ${cursor.key})`
      : Prisma.sql`(created_at, key) > (${cursor.createdAt}::timestamptz, ${cursor.key})`
    : null;
  const where = whereClause(keyset ? [...conditions, keyset] : conditions);
  const order = descending
    ? Prisma.sql`ORDER BY created_at DESC, key DESC`
    : Prisma.sql`ORDER BY created_at ASC, key ASC`;
  return Prisma.sql`SELECT ${columns} FROM idempotency ${where} ${order} LIMIT ${take}`;
}

export function cursorOf(row: RecordRow): string {
  return encodeCursor({ createdAt: row.created_at_exact, key: row.key });
}

export function toListItem(row: RecordRow, config: IdemConfig, now: Date): RecordListItem {
  return {
    key: row.key,
    ref: refOf(row.key),
    tenant: row.tenant,
    subject: row.subject,
    tool: row.tool,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at ? row.updated_at.toISOString() : null,
    stuck: isStuck(config, { status: row.status, tool: row.tool, createdAt: row.created_at }, now),
    stuckAfterMs: stuckAfterMs(config, row.tool),
  };
}

/**
 * One page of the records list, newest first (or oldest first: the stuck list). Fetches limit+1
 * rows to learn whether another page follows; a `prev` page is read backwards from the cursor and
 * turned around.
 */
export async function listRecords(
  db: Db,
  actor: Actor,
  query: RecordsQuery,
  config: IdemConfig,
  now: Date,
  order: ListOrder = "newest",
): Promise<RecordsPage> {
  const conditions = recordsConditions(actor, query, config, now);
  const fetched = await fetchRecordRows(
    db,
    conditions,
    { cursor: query.cursor, dir: query.dir, order },
    query.limit + 1,
  );
  const hasMore = fetched.length > query.limit;
  const pageRows = fetched.slice(0, query.limit);
  const rows = query.dir === "next" ? pageRows : pageRows.reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  const here = query.cursor ? encodeCursor(query.cursor) : null;

  let nextCursor: string | null;
  let prevCursor: string | null;
  if (query.dir === "next") {
    nextCursor = hasMore && last ? cursorOf(last) : null;
    // Arrived from a newer page: it is still there (an empty page points back at the cursor).
    prevCursor = here === null ? null : first ? cursorOf(first) : here;
  } else {
    prevCursor = hasMore && first ? cursorOf(first) : null;
    nextCursor = last ? cursorOf(last) : here;
  }
  return { records: rows.map((row) => toListItem(row, config, now)), nextCursor, prevCursor };
}
