import "server-only";
import type { Db } from "@/lib/db/prisma";

/** The figures a shown estimate was made from (GET /api/v1/records facets: `basis`). */
export type EstimateBasis = {
  /** The planner's row estimate for the filter (here: the whole table, scaled by the planner to its current size). */
  filterRows: number;
  /** The value's share of the rows in pg_stats (most_common_freqs, or null_frac for "unrecorded"). */
  share: number;
  /** pg_class.reltuples: the row count the last ANALYZE (or VACUUM) measured. */
  tableRows: number;
  /** ISO time of the last ANALYZE or autoanalyze. */
  analyzedAt: string;
  /** pg_stat_user_tables.n_mod_since_analyze: rows inserted, updated or deleted since. */
  modifiedSinceAnalyze: number;
};

export type CommonValue = { value: string | null; share: number };

/** What PostgreSQL knows about the idempotency table's contents, and how old that knowledge is. */
export type TableStatistics = {
  /** -1 before the first ANALYZE or VACUUM (PostgreSQL 14+). */
  tableRows: number;
  analyzedAt: Date | null;
  modifiedSinceAnalyze: number;
  common: Record<"status" | "tool", CommonValue[]>;
};

const MAX_VALUES = 50;

/**
 * The largest drift, as a share of an estimate, with which it is still shown. Each row inserted,
 * updated or deleted since ANALYZE moves any one value's count by at most 1, so a value counted
 * C rows at ANALYZE has between C − n_mod and C + n_mod now. ANALYZE reads every row of a table
 * under 30,000 rows (default_statistics_target 100) and a 30,000-row sample of a larger one, where
 * it keeps a value among the most common only when the sample saw it often enough to know its share
 * closely. With n_mod ≤ E/4 the true count lies within about [0.75 E, 1.25 E] plus that sampling
 * error: inside the promised 2× with room to spare. A value whose estimate is small against the
 * changes since ANALYZE is counted instead.
 */
export const MAX_DRIFT_SHARE = 0.25;

/**
 * pg_class.reltuples, the last (auto)analyze and n_mod_since_analyze for idempotency, and the two
 * columns' most common values. Two catalog reads, a fraction of a millisecond at any table size.
 */
export async function readTableStatistics(db: Db): Promise<TableStatistics> {
  const [table, columns] = await Promise.all([
    db.$queryRaw<{ reltuples: number; analyzed_at: Date | null; modified: number | null }[]>`
      SELECT c.reltuples::float8 AS reltuples,
             GREATEST(pg_stat_get_last_analyze_time(c.oid), pg_stat_get_last_autoanalyze_time(c.oid)) AS analyzed_at,
             pg_stat_get_mod_since_analyze(c.oid)::float8 AS modified
      FROM pg_class c WHERE c.oid = to_regclass('idempotency')`,
    db.$queryRaw<{ attname: "status" | "tool"; vals: string[] | null; freqs: number[] | null; null_frac: number }[]>`
      SELECT attname::text AS attname, most_common_vals::text::text[] AS vals, most_common_freqs::float8[] AS freqs, null_frac::float8 AS null_frac
      FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'idempotency' AND attname IN ('status', 'tool')`,
  ]);
  const common: TableStatistics["common"] = { status: [], tool: [] };
  for (const row of columns) {
    const values: CommonValue[] = (row.vals ?? [])
      .slice(0, MAX_VALUES)
      .map((value, i) => ({ value, share: row.freqs?.[i] ?? 0 }));
    if (row.null_frac > 0) values.push({ value: null, share: row.null_frac });
    common[row.attname] = values;
  }
  const [t] = table;
  return {
    tableRows: t?.reltuples ?? -1,
    analyzedAt: t?.analyzed_at ?? null,
    modifiedSinceAnalyze: t?.modified ?? 0,
    common,
  };
}

/**
 * The whole table's count of one value as the planner would estimate it (its rows × the value's
 * share), or null when the statistics cannot promise it within 2×: never analysed, or changed too
 * much since (MAX_DRIFT_SHARE). Only for the whole table: with any other condition the planner
 * multiplies selectivities as if the columns were independent (a tenant's tools, the last hour's
 * statuses), which can be wrong by far more than 2×.
 *
 * Drift is n_mod_since_analyze, or the planner's growth of the table since ANALYZE when that is
 * larger: a writer's counters reach pg_stat only when its backend flushes them (up to a minute
 * later), while the planner scales reltuples by the table's current size in pages at once.
 */
export function wholeTableEstimate(
  stats: TableStatistics,
  tableRowsNow: number,
  share: number,
): { count: number; basis: EstimateBasis } | null {
  if (stats.analyzedAt === null || stats.tableRows < 0) return null;
  const count = Math.round(tableRowsNow * share);
  const drift = Math.max(stats.modifiedSinceAnalyze, Math.abs(tableRowsNow - stats.tableRows));
  if (count <= 0 || drift > count * MAX_DRIFT_SHARE) return null;
  return {
    count,
    basis: {
      filterRows: tableRowsNow,
      share,
      tableRows: stats.tableRows,
      analyzedAt: stats.analyzedAt.toISOString(),
      modifiedSinceAnalyze: stats.modifiedSinceAnalyze,
    },
  };
}
