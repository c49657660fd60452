import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/auth/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { RecordsFilter } from "@/lib/records/list-filters";
import { recordsConditions, whereClause } from "@/lib/records/list-records";

export type FacetEntry = {
  /** A status, or a tool name; null = the tool is unrecorded. */
  value: string | null;
  count: number;
  /** A planner estimate, shown as "≈": counting exactly would take too long. */
  estimate: boolean;
};

export type Facet = {
  entries: FacetEntry[];
  /** Why some or all counts are missing or estimated; null when every count is exact and complete. */
  note: string | null;
};

export type RecordFacets = { status: Facet; tool: Facet };

export type FacetOptions = {
  /** Above this many matching rows (planner estimate), count with estimates instead. */
  exactRowLimit?: number;
  /** Past exactRowLimit, open claims (status <> 'completed') are still counted exactly up to this many. */
  exactOpenRowLimit?: number;
  /** An exact count that runs longer than this is abandoned for an estimate. */
  timeoutMs?: number;
};

const MAX_VALUES = 50;
const STATEMENT_TIMEOUT = "57014";

/**
 * Counts per status and per tool for the current filter. Each facet ignores its own dimension
 * (the status counts say what each status chip would show with the other filters kept).
 *
 * Exact when cheap: the planner expects at most `exactRowLimit` matching rows, or the actor is
 * tenant-limited (estimates come from table-wide statistics, which could name another tenant's
 * tools). Otherwise, and when an exact count hits its statement timeout:
 * - status: statuses other than completed are still counted exactly through the small partial
 *   index `status <> 'completed'` (only `completed` is a planner estimate), unless the planner
 *   expects more than `exactOpenRowLimit` open claims too: then every common status is an estimate;
 * - tool: the planner's estimate for each of the column's most common values (pg_stats).
 */
export async function getRecordFacets(
  db: Db,
  actor: Actor,
  filter: RecordsFilter,
  config: IdemConfig,
  now: Date,
  options: FacetOptions = {},
): Promise<RecordFacets> {
  // Counting 200,000 rows took 150–180 ms on 2 cores (docs/bench.md); 10,000 stay within a few ms.
  const exactRowLimit = options.exactRowLimit ?? 10_000;
  const exactOpenRowLimit = options.exactOpenRowLimit ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 1_500;
  const scoped = actor.tenants.length > 0;

  const statusConditions = recordsConditions(actor, { ...filter, status: null }, config, now);
  const toolConditions = recordsConditions(actor, { ...filter, tool: null }, config, now);

  async function statusFacet(): Promise<Facet> {
    if (scoped || (await estimateRows(db, statusConditions)) <= exactRowLimit) {
      const exact = await countExactly(db, "status", statusConditions, timeoutMs);
      if (exact) return exact;
      if (scoped) return { entries: [], note: "counting took too long; narrow the filter" };
    }
    // Open claims are few, so usually counted exactly; when even they are many (30,000 at 10 M
    // rows: 22 ms to count, docs/bench.md), each common status is a planner estimate too.
    const openConditions = [...statusConditions, Prisma.sql`status <> 'completed'`];
    const open = (await estimateRows(db, openConditions)) <= exactOpenRowLimit ? await countExactly(db, "status", openConditions, timeoutMs) : null;
    if (!open) {
      const entries: FacetEntry[] = [];
      for (const value of await commonValues(db, "status")) {
        // A stuck filter implies in_progress: the planner would still estimate a row or two for the others.
        if (value === null || (filter.stuck && value !== "in_progress")) continue;
        entries.push({ value, count: await estimateRows(db, [...statusConditions, Prisma.sql`status = ${value}`]), estimate: true });
      }
      return { entries: sortEntries(entries), note: "planner estimates for the most common statuses; too many rows to count quickly" };
    }
    const completed = await estimateRows(db, [...statusConditions, Prisma.sql`status = 'completed'`]);
    const entries = [...open.entries];
    // The planner never estimates zero rows; a filter that excludes completed rows says so.
    if (filter.stuck === false) entries.push({ value: "completed", count: completed, estimate: true });
    return { entries: sortEntries(entries), note: "completed is a planner estimate" };
  }

  async function toolFacet(): Promise<Facet> {
    if (scoped || (await estimateRows(db, toolConditions)) <= exactRowLimit) {
      const exact = await countExactly(db, "tool", toolConditions, timeoutMs);
      if (exact) return exact;
      if (scoped) return { entries: [], note: "counting took too long; narrow the filter" };
    }
    const common = await commonValues(db, "tool");
    const entries: FacetEntry[] = [];
    for (const value of common) {
      const condition = value === null ? Prisma.sql`tool IS NULL` : Prisma.sql`tool = ${value}`;
      entries.push({ value, count: await estimateRows(db, [...toolConditions, condition]), estimate: true });
    }
    return { entries: sortEntries(entries), note: "planner estimates for the most common tools; rare tools are not listed" };
  }

  const [status, tool] = await Promise.all([statusFacet(), toolFacet()]);
  return { status, tool };
}

function sortEntries(entries: FacetEntry[]): FacetEntry[] {
  return entries.sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
}

/** The planner's row estimate for a filter: a fraction of a millisecond at any table size. */
export async function estimateRows(db: Db, conditions: Prisma.Sql[]): Promise<number> {
  const rows = await db.$queryRaw<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }[]>`
    EXPLAIN (FORMAT JSON) SELECT 1 FROM idempotency ${whereClause(conditions)}`;
  return Math.round(rows[0]?.["QUERY PLAN"][0].Plan["Plan Rows"] ?? 0);
}

/** GROUP BY one column under a statement timeout; null when it ran out of time. */
async function countExactly(db: Db, column: "status" | "tool", conditions: Prisma.Sql[], timeoutMs: number): Promise<Facet | null> {
  const columnSql = Prisma.raw(column); // one of two fixed identifiers, never user input
  try {
    const rows = await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT set_config('statement_timeout', ${String(Math.round(timeoutMs))}, true)`;
      return tx.$queryRaw<{ value: string | null; count: number }[]>`
        SELECT ${columnSql} AS value, count(*)::float8 AS count FROM idempotency ${whereClause(conditions)}
        GROUP BY ${columnSql} ORDER BY count DESC, ${columnSql} LIMIT ${MAX_VALUES + 1}`;
    });
    const entries = rows.slice(0, MAX_VALUES).map((r) => ({ value: r.value, count: r.count, estimate: false }));
    return { entries, note: rows.length > MAX_VALUES ? `only the ${MAX_VALUES} most frequent values are listed` : null };
  } catch (error) {
    if (isStatementTimeout(error)) return null;
    throw error;
  }
}

function isStatementTimeout(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === STATEMENT_TIMEOUT || (typeof message === "string" && message.includes("statement timeout"))) return true;
  }
  return false;
}

/** A column's most common values from the planner statistics (ANALYZE keeps them current); null when it has NULLs. */
async function commonValues(db: Db, column: "status" | "tool"): Promise<(string | null)[]> {
  const rows = await db.$queryRaw<{ vals: string[] | null; null_frac: number }[]>`
    SELECT most_common_vals::text::text[] AS vals, null_frac::float8 AS null_frac FROM pg_stats
    WHERE schemaname = current_schema() AND tablename = 'idempotency' AND attname = ${column}`;
  const stats = rows[0];
  if (!stats) return [];
  const values: (string | null)[] = (stats.vals ?? []).slice(0, MAX_VALUES);
  if (stats.null_frac > 0) values.push(null);
  return values;
}
