import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { RecordsFilter } from "@/lib/records/list-filters";
import { recordsConditions, whereClause } from "@/lib/records/list-records";
import {
  readTableStatistics,
  wholeTableEstimate,
  type EstimateBasis,
  type TableStatistics,
} from "@/lib/records/planner-statistics";

export type { EstimateBasis } from "@/lib/records/planner-statistics";

export type FacetEntry = {
  /** A status, or a tool name; null = the tool is unrecorded. */
  value: string | null;
  count: number;
  /** A planner estimate from fresh statistics, shown as "≈": within 2× of the true count. */
  estimate: boolean;
  /** A lower bound, shown as "500+": counting stopped after a cap of matching rows to stay fast. */
  atLeast: boolean;
  /** What an estimate was made from; null for exact counts and lower bounds. */
  basis: EstimateBasis | null;
};

export type Facet = {
  entries: FacetEntry[];
  /** Why some or all counts are missing, estimated or lower bounds; null when every count is exact and complete. */
  note: string | null;
};

export type RecordFacets = { status: Facet; tool: Facet };

export type FacetOptions = {
  /** When the planner expects at most this many matching rows, one count of the filter tries to be exact (default 10,000). */
  exactRowLimit?: number;
  /** Counts of open claims stop after this many matches (default COUNT_CAP); tests set a small one. */
  countCap?: number;
  /** Other counts (completed, the tools of a big filter) stop after this many (default ROWS_COUNT_CAP). */
  rowsCountCap?: number;
  /** A count that runs longer than this is abandoned: "counting took too long". */
  timeoutMs?: number;
};

/**
 * Where a count of open claims may meet many rows, it stops after this many matches and says "500+":
 * counting all 30,000 open claims at 10 M rows took 12–15 ms (docs/bench.md), three times what the
 * whole list may take (5 ms); a walk that stops after 501 matches costs well under a millisecond,
 * and beyond a few hundred the exact figure does not change what anyone does next.
 */
export const COUNT_CAP = 500;
/**
 * Every other count stops after this many matching rows ("1,000+"), shown wherever no estimate can
 * promise 2×. A walk of 1,001 matches down an index took about 1 ms at 200,000 rows; 10,001 took
 * 4–24 ms (9–38 ms p95) depending on how many rows the filter skips — over the 5 ms a whole list may
 * take (bench, 2 busy cores). Below 1,000 rows a GROUP BY of them is never a big sort.
 */
export const ROWS_COUNT_CAP = 1_000;
/** A filter the planner expects at most this small is counted in one statement, exactly (old statistics: at worst one walk of this many rows). */
const EXACT_ROW_LIMIT = 10_000;
const MAX_VALUES = 50;
const STATEMENT_TIMEOUT = "57014";

/**
 * Counts per status and per tool for the current filter. Each facet ignores its own dimension
 * (the status counts say what each status chip would show with the other filters kept).
 *
 * Every figure is exact, a lower bound ("+"), or an estimate ("≈") that is within 2× of the truth:
 * - a filter the planner expects to be small is counted exactly in one statement (up to the cap);
 * - statuses other than completed are counted through the small covering partial index
 *   `status <> 'completed'`, stopping after `countCap` of them (then each is a lower bound, "312+");
 * - completed, and the tools, are planner estimates only for the whole table (no filter, no tenant
 *   limit) and only while the statistics are fresh (planner-statistics.ts); otherwise counted,
 *   stopping after `rowsCountCap` matches. A capped count of the tools counts the newest rows,
 *   so a tool not among them is not listed (the note says so).
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
  const exactRowLimit = options.exactRowLimit ?? EXACT_ROW_LIMIT;
  const cap = options.countCap ?? COUNT_CAP;
  const rowsCap = options.rowsCountCap ?? ROWS_COUNT_CAP;
  const timeoutMs = options.timeoutMs ?? 1_500;
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
  let statsRead: Promise<TableStatistics> | null = null;
  const stats = () => (statsRead ??= readTableStatistics(db));
  const count = (column: "status" | "tool", conditions: Prisma.Sql[], limit: number) =>
    countRows(db, column, conditions, timeoutMs, limit);

  /** One count of the whole filter when the planner expects it small; null when it was not (or is not). */
  async function countWhenSmall(column: "status" | "tool", conditions: Prisma.Sql[]): Promise<Facet | null> {
    if ((await estimate(conditions)) > exactRowLimit) return null;
    const counted = await count(column, conditions, Math.max(exactRowLimit, rowsCap));
    // More rows than the planner expected (statistics that are stale or blind to a correlation):
    // counted again the way a big filter is.
    return counted && !counted.entries.some((e) => e.atLeast) ? counted : null;
  }

  async function statusFacet(): Promise<Facet> {
    // A stuck filter's rows are open claims, read from the partial index: counted up to the cap.
    if (filter.stuck) {
      const stuck = await count("status", statusConditions, cap);
      return stuck ? withCapNote(stuck, cap, "open claims", "status") : tooLong;
    }
    const small = await countWhenSmall("status", statusConditions);
    if (small) return small;
    // Open claims are few, but 30,000 at 10 M rows took 12–15 ms to count in full (docs/bench.md):
    // the walk of the partial index stops after cap + 1 matches.
    const open = await count("status", [...statusConditions, Prisma.sql`status <> 'completed'`], cap);
    if (!open) return tooLong;
    const completed = await completedEntry();
    if (completed === "timeout") return tooLong;
    const entries = sortEntries(completed ? [...open.entries, completed] : [...open.entries]);
    const notes = [
      estimateNote(entries),
      capNote(open.entries, cap, "open claims", "status"),
      capNote(completed ? [completed] : [], rowsCap, "completed records", null),
    ];
    return { entries, note: joinNotes(notes) };
  }

  async function completedEntry(): Promise<FacetEntry | null | "timeout"> {
    if (statusConditions.length === 0) {
      const tableStats = await stats();
      const share = tableStats.common.status.find((v) => v.value === "completed")?.share;
      const estimated =
        share === undefined ? null : wholeTableEstimate(tableStats, await estimate(statusConditions), share);
      if (estimated)
        return { value: "completed", count: estimated.count, estimate: true, atLeast: false, basis: estimated.basis };
    }
    const counted = await countValue(db, [...statusConditions, Prisma.sql`status = 'completed'`], timeoutMs, rowsCap);
    if (counted === null) return "timeout";
    if (counted === 0) return null; // like a GROUP BY: a status no row has is not listed
    return {
      value: "completed",
      count: Math.min(counted, rowsCap),
      estimate: false,
      atLeast: counted > rowsCap,
      basis: null,
    };
  }

  async function toolFacet(): Promise<Facet> {
    // Open claims come from the partial index, which an exact count reads in full whatever the
    // filter matches (30,000 entries at 10 M rows, 4–5 ms): they are counted up to the cap.
    const openOnly = filter.stuck || (filter.status !== null && filter.status !== "completed");
    if (openOnly) {
      const open = await count("tool", toolConditions, cap);
      return open ? withCapNote(open, cap, "open claims", "tool") : tooLong;
    }
    const small = await countWhenSmall("tool", toolConditions);
    if (small) return small;
    if (toolConditions.length === 0) {
      const whole = await wholeTableTools();
      if (whole) return whole;
    }
    const sample = await count("tool", toolConditions, rowsCap);
    return sample ? withCapNote(sample, rowsCap, "matching records", "tool") : tooLong;
  }

  /**
   * The whole table's tools from the statistics' most common values, each a planner estimate; null
   * unless every one of them is fresh enough to show (planner-statistics.ts). Then a tool missing
   * from the list was rarer than all of them at ANALYZE and has changed little since — unlike after
   * a bulk load of a new tool, which the newest rows' count shows instead.
   */
  async function wholeTableTools(): Promise<Facet | null> {
    const tableStats = await stats();
    if (tableStats.common.tool.length === 0) return null;
    const tableRowsNow = await estimate(toolConditions);
    const entries: FacetEntry[] = [];
    for (const { value, share } of tableStats.common.tool) {
      const estimated = wholeTableEstimate(tableStats, tableRowsNow, share);
      if (!estimated) return null;
      entries.push({ value, count: estimated.count, estimate: true, atLeast: false, basis: estimated.basis });
    }
    return {
      entries: sortEntries(entries),
      note: joinNotes([estimateNote(entries), "tools rarer than the statistics' most common values are not listed"]),
    };
  }

  const [status, tool] = await Promise.all([statusFacet(), toolFacet()]);
  return { status, tool };
}

/** "completed is a planner estimate…" (the chip's tooltip says what from); null without estimates. */
function estimateNote(entries: FacetEntry[]): string | null {
  const estimated = entries.filter((e) => e.estimate).map((e) => e.value ?? "unrecorded");
  if (estimated.length === 0) return null;
  if (estimated.length === entries.length && entries.length > 1)
    return "every count is a planner estimate from fresh statistics, within 2×";
  return `${estimated.join(", ")} ${estimated.length === 1 ? "is a planner estimate" : "are planner estimates"} from fresh statistics, within 2×`;
}

/**
 * What a lower bound means: counting stopped after `cap` of `what`; when it counted the newest
 * rows of several values (`column`), a value not among them is not listed. null without lower bounds.
 */
function capNote(entries: FacetEntry[], cap: number, what: string, column: "status" | "tool" | null): string | null {
  if (!entries.some((e) => e.atLeast)) return null;
  const missing = column ? `; a ${column} not among them is not listed` : "";
  return `"+" is a lower bound: counting stops after the newest ${cap.toLocaleString("en")} ${what} to stay fast${missing}`;
}

function joinNotes(notes: (string | null)[]): string | null {
  const parts = notes.filter((n): n is string => n !== null);
  return parts.length > 0 ? parts.join("; ") : null;
}

/** A count's own note, and when it stopped at the cap, what that means. */
function withCapNote(facet: Facet, cap: number, what: string, column: "status" | "tool"): Facet {
  return { entries: facet.entries, note: joinNotes([facet.note, capNote(facet.entries, cap, what, column)]) };
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

// Newest first, as the list pages: an index walk that stops after cap + 1 matches. Without the
// order the planner may take a sequential scan "until cap + 1 rows", which reads the whole
// table first when the matching rows are all recent (a new tenant's).
const newestFirst = (cap: number) => Prisma.sql`ORDER BY created_at DESC, key DESC LIMIT ${cap + 1}`;

/**
 * GROUP BY one column over the newest cap + 1 matching rows, under a statement timeout; null when
 * it ran out of time. When there were more than cap, every entry is a lower bound, at most cap.
 */
async function countRows(
  db: Db,
  column: "status" | "tool",
  conditions: Prisma.Sql[],
  timeoutMs: number,
  cap: number,
): Promise<Facet | null> {
  const columnSql = Prisma.raw(column); // one of two fixed identifiers, never user input
  const rows = await withTimeout(
    db,
    timeoutMs,
    (tx) =>
      tx.$queryRaw<{ value: string | null; count: number; total: number }[]>`
      SELECT value, count(*)::float8 AS count, sum(count(*)) OVER ()::float8 AS total
      FROM (SELECT ${columnSql} AS value FROM idempotency ${whereClause(conditions)} ${newestFirst(cap)}) matching
      GROUP BY value ORDER BY count DESC, value LIMIT ${MAX_VALUES + 1}`,
  );
  if (!rows) return null;
  const atLeast = (rows[0]?.total ?? 0) > cap;
  const entries = rows.slice(0, MAX_VALUES).map((r) => ({
    value: r.value,
    count: atLeast ? Math.min(r.count, cap) : r.count,
    estimate: false,
    atLeast,
    basis: null,
  }));
  return { entries, note: rows.length > MAX_VALUES ? `only the ${MAX_VALUES} most frequent values are listed` : null };
}

/** How many rows match, counting at most cap + 1 of them (no GROUP BY: nothing to sort); null on timeout. */
async function countValue(db: Db, conditions: Prisma.Sql[], timeoutMs: number, cap: number): Promise<number | null> {
  const rows = await withTimeout(
    db,
    timeoutMs,
    (tx) =>
      tx.$queryRaw<{ count: number }[]>`
      SELECT count(*)::float8 AS count FROM (SELECT 1 FROM idempotency ${whereClause(conditions)} ${newestFirst(cap)}) matching`,
  );
  return rows ? (rows[0]?.count ?? 0) : null;
}

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

async function withTimeout<T>(db: Db, timeoutMs: number, run: (tx: Tx) => Promise<T>): Promise<T | null> {
  try {
    return await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT set_config('statement_timeout', ${String(Math.round(timeoutMs))}, true)`;
      return run(tx);
    });
  } catch (error) {
    if (isStatementTimeout(error)) return null;
    throw error;
  }
}

function isStatementTimeout(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === STATEMENT_TIMEOUT || (typeof message === "string" && message.includes("statement timeout")))
      return true;
  }
  return false;
}
