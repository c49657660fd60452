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
  /** A lower bound, shown as "500+": counting stopped after COUNT_CAP matching rows to stay fast. */
  atLeast: boolean;
};

export type Facet = {
  entries: FacetEntry[];
  /** Why some or all counts are missing, estimated or lower bounds; null when every count is exact and complete. */
  note: string | null;
};

export type RecordFacets = { status: Facet; tool: Facet };

export type FacetOptions = {
  /** Above this many matching rows (planner estimate), count with estimates instead. */
  exactRowLimit?: number;
  /** Where a count may meet many rows, it stops after this many matches (default COUNT_CAP); tests set a small one. */
  countCap?: number;
  /** An exact count that runs longer than this is abandoned for an estimate. */
  timeoutMs?: number;
};

/**
 * Where a count may meet many rows, it stops after this many matches and says "500+" (GitHub's "1k+"):
 * counting all 30,000 open claims at 10 M rows took 12–15 ms (docs/bench.md), three times what the whole
 * list may take (5 ms); a walk that stops after 501 matches costs well under a millisecond, and beyond a
 * few hundred the exact figure does not change what anyone does next. Below 1,000 because the sample's
 * GROUP BY may sort it: the bench's plan check (lib/bench/plan-check.ts) refuses any sort of 1,000 rows
 * of a big table.
 */
export const COUNT_CAP = 500;
const MAX_VALUES = 50;
const STATEMENT_TIMEOUT = "57014";

/**
 * Counts per status and per tool for the current filter. Each facet ignores its own dimension
 * (the status counts say what each status chip would show with the other filters kept).
 *
 * Exact when cheap: the planner expects at most `exactRowLimit` matching rows. Otherwise, and when
 * an exact count hits its statement timeout, no count reads more than `countCap` matching rows:
 * - status: statuses other than completed are counted through the small covering partial index
 *   `status <> 'completed'`, stopping after `countCap` of them (then each is a lower bound, "312+");
 *   completed is a planner estimate, or for a tenant-limited actor a count that stops at the cap too;
 * - tool: the planner's estimate for each of the column's most common values (pg_stats); for a
 *   tenant-limited actor (estimates come from table-wide statistics, which could name another
 *   tenant's tools) the tools of the newest `countCap` matching rows, each a lower bound.
 * The tools of a filter on open claims (an open status, stuck) stop at `countCap` even when the
 * planner expects few: they come from the partial index, which an uncapped count reads in full.
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
  const cap = options.countCap ?? COUNT_CAP;
  const timeoutMs = options.timeoutMs ?? 1_500;
  const scoped = actor.tenants.length > 0;
  const tooLong: Facet = { entries: [], note: "counting took too long; narrow the filter" };

  const statusConditions = recordsConditions(actor, { ...filter, status: null }, config, now);
  const toolConditions = recordsConditions(actor, { ...filter, tool: null }, config, now);
  // Each plan of this table costs ~0.3 ms: the same filter is planned once (status and tool
  // conditions are the same filter when neither is set), the statistics read once for both columns.
  const estimates = new Map<string, Promise<number>>();
  const estimate = (conditions: Prisma.Sql[]) => {
    const where = whereClause(conditions);
    const key = `${where.sql}\u0000${JSON.stringify(where.values)}`;
    let planned = estimates.get(key);
    if (!planned) estimates.set(key, (planned = estimateRows(db, conditions)));
    return planned;
  };
  let stats: Promise<ColumnStats> | null = null;
  const commonValues = async (column: "status" | "tool") => (await (stats ??= columnStats(db)))[column];

  async function statusFacet(): Promise<Facet> {
    if ((await estimate(statusConditions)) <= exactRowLimit) {
      // A stuck filter's rows are open claims, read from the partial index: counted up to the cap (see toolFacet).
      const counted = await countRows(db, "status", statusConditions, timeoutMs, filter.stuck ? cap : undefined);
      if (counted) return withCapNote(counted, cap, "status");
    }
    // Open claims are few, but 30,000 at 10 M rows took 12–15 ms to count in full (docs/bench.md):
    // the walk of the partial index stops after cap + 1 matches.
    const open = await countRows(db, "status", [...statusConditions, Prisma.sql`status <> 'completed'`], timeoutMs, cap);
    if (!open && scoped) return tooLong;
    if (!open) {
      const entries: FacetEntry[] = [];
      const filterEstimate = await estimate(statusConditions);
      for (const { value, share } of await commonValues("status")) {
        // A stuck filter implies in_progress: the planner would still estimate a row or two for the others.
        if (value === null || (filter.stuck && value !== "in_progress")) continue;
        entries.push({ value, count: shareOf(filterEstimate, share), estimate: true, atLeast: false });
      }
      return { entries: sortEntries(entries), note: "planner estimates for the most common statuses; too many rows to count quickly" };
    }
    const entries = [...open.entries];
    const completedConditions = [...statusConditions, Prisma.sql`status = 'completed'`];
    // A filter that excludes completed rows (stuck) says so; the planner would never estimate zero rows.
    if (filter.stuck === false && scoped) {
      const completed = await countRows(db, "status", completedConditions, timeoutMs, cap);
      if (!completed) return tooLong;
      entries.push(...completed.entries);
    } else if (filter.stuck === false) {
      const share = (await commonValues("status")).find((v) => v.value === "completed")?.share;
      const count = share === undefined ? await estimate(completedConditions) : shareOf(await estimate(statusConditions), share);
      entries.push({ value: "completed", count, estimate: true, atLeast: false });
    }
    return { entries: sortEntries(entries), note: facetNote(entries, cap, "status") };
  }

  async function toolFacet(): Promise<Facet> {
    // Open claims come from the partial index, which an exact count reads in full whatever the
    // filter matches (30,000 entries at 10 M rows, 4–5 ms): they are counted up to the cap.
    const openOnly = filter.stuck || (filter.status !== null && filter.status !== "completed");
    const filterEstimate = await estimate(toolConditions);
    if (filterEstimate <= exactRowLimit) {
      const counted = await countRows(db, "tool", toolConditions, timeoutMs, openOnly ? cap : undefined);
      if (counted) return withCapNote(counted, cap, "tool");
    }
    if (scoped) {
      const sample = await countRows(db, "tool", toolConditions, timeoutMs, cap);
      return sample ? withCapNote(sample, cap, "tool") : tooLong;
    }
    const entries: FacetEntry[] = (await commonValues("tool")).map(({ value, share }) => ({ value, count: shareOf(filterEstimate, share), estimate: true, atLeast: false }));
    return { entries: sortEntries(entries), note: "planner estimates for the most common tools; rare tools are not listed" };
  }

  const [status, tool] = await Promise.all([statusFacet(), toolFacet()]);
  return { status, tool };
}

/**
 * Says which counts are planner estimates ("≈") and which lower bounds ("+"), and that a count
 * which stopped lists only the values of the rows it read; null when every count is exact.
 */
function facetNote(entries: FacetEntry[], cap: number, column: "status" | "tool"): string | null {
  const parts: string[] = [];
  const estimated = entries.filter((e) => e.estimate).map((e) => e.value ?? "unrecorded");
  if (estimated.length > 0) parts.push(`${estimated.join(", ")} ${estimated.length === 1 ? "is a planner estimate" : "are planner estimates"}`);
  if (entries.some((e) => e.atLeast)) {
    parts.push(`"+" is a lower bound: counting stops after the newest ${cap.toLocaleString("en")} records to stay fast; a ${column} not among them is not listed`);
  }
  return parts.length > 0 ? parts.join("; ") : null;
}

/** A count's own note, and when it stopped at the cap, what that means. */
function withCapNote(facet: Facet, cap: number, column: "status" | "tool"): Facet {
  const capped = facet.entries.some((e) => e.atLeast) ? facetNote(facet.entries, cap, column) : null;
  return capped ? { entries: facet.entries, note: facet.note ? `${facet.note}; ${capped}` : capped } : facet;
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

/**
 * GROUP BY one column under a statement timeout; null when it ran out of time. With a cap, only the
 * newest cap + 1 matching rows are read (a LIMITed subquery: the scan stops there) and, when there
 * were more than cap, every entry is a lower bound, at most cap.
 */
async function countRows(db: Db, column: "status" | "tool", conditions: Prisma.Sql[], timeoutMs: number, cap?: number): Promise<Facet | null> {
  const columnSql = Prisma.raw(column); // one of two fixed identifiers, never user input
  // Newest first, as the list pages: an index walk that stops after cap + 1 matches. Without the
  // order the planner may take a sequential scan "until cap + 1 rows", which reads the whole
  // table first when the matching rows are all recent (a new tenant's).
  const limit = cap === undefined ? Prisma.empty : Prisma.sql`ORDER BY created_at DESC, key DESC LIMIT ${cap + 1}`;
  try {
    const rows = await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT set_config('statement_timeout', ${String(Math.round(timeoutMs))}, true)`;
      return tx.$queryRaw<{ value: string | null; count: number; total: number }[]>`
        SELECT value, count(*)::float8 AS count, sum(count(*)) OVER ()::float8 AS total
        FROM (SELECT ${columnSql} AS value FROM idempotency ${whereClause(conditions)} ${limit}) matching
        GROUP BY value ORDER BY count DESC, value LIMIT ${MAX_VALUES + 1}`;
    });
    const atLeast = cap !== undefined && (rows[0]?.total ?? 0) > cap;
    const entries = rows.slice(0, MAX_VALUES).map((r) => ({ value: r.value, count: atLeast ? Math.min(r.count, cap) : r.count, estimate: false, atLeast }));
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
type CommonValue = { value: string | null; share: number };
type ColumnStats = Record<"status" | "tool", CommonValue[]>;

/** Both columns' most common values and their shares from the planner statistics (ANALYZE keeps them current); null when a column has NULLs. */
async function columnStats(db: Db): Promise<ColumnStats> {
  const rows = await db.$queryRaw<{ attname: "status" | "tool"; vals: string[] | null; freqs: number[] | null; null_frac: number }[]>`
    SELECT attname::text AS attname, most_common_vals::text::text[] AS vals, most_common_freqs::float8[] AS freqs, null_frac::float8 AS null_frac FROM pg_stats
    WHERE schemaname = current_schema() AND tablename = 'idempotency' AND attname IN ('status', 'tool')`;
  const stats: ColumnStats = { status: [], tool: [] };
  for (const row of rows) {
    const values: CommonValue[] = (row.vals ?? []).slice(0, MAX_VALUES).map((value, i) => ({ value, share: row.freqs?.[i] ?? 0 }));
    if (row.null_frac > 0) values.push({ value: null, share: row.null_frac });
    stats[row.attname] = values;
  }
  return stats;
}

/**
 * The planner's estimate for `conditions AND column = value`, without planning it again: for
 * conditions on other columns the planner multiplies the selectivities (no extended statistics
 * here), i.e. the filter's estimate × the value's share in pg_stats. One plan for every value
 * instead of one each (each plan of this table costs ~0.3 ms: six tools were two thirds of a list's
 * statements at 10 M rows, docs/bench.md).
 */
function shareOf(filterEstimate: number, share: number): number {
  return Math.round(filterEstimate * share);
}
