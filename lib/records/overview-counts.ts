import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { estimateRows } from "@/lib/records/facet-counts";
import { stuckCondition } from "@/lib/records/list-records";
import { readTableStatistics, wholeTableEstimate } from "@/lib/records/planner-statistics";
import { actorTenantScope, type TenantScope } from "@/lib/tenancy/tenant-scope";

export type OverviewCounts = {
  /** For a large table with fresh statistics, the planner's estimate (count(*) takes seconds at 10 M rows). */
  records: number;
  recordsIsEstimate: boolean;
  /** A lower bound ("100,000+"): a large table whose statistics are stale, counted up to RECORDS_COUNT_CAP. */
  recordsAtLeast: boolean;
  inProgress: number;
  /** in_progress past each tool's stuckAfter threshold (lib/records/stuck-threshold.ts). */
  stuck: number;
  oldestInProgressAt: Date | null;
  newestRecordAt: Date | null;
};

/** Headline figures for the overview page, limited to the tenants the actor may see. */
export async function getOverviewCounts(db: Db, actor: Actor, config: IdemConfig, now: Date): Promise<OverviewCounts> {
  const scope = actorTenantScope(actor);
  const tenantFilter = scope.where;
  const [records, inProgress, stuck, oldest, newest] = await Promise.all([
    scope.tenants !== null
      ? db.idempotency.count({ where: tenantFilter }).then((value) => ({ value, estimate: false, atLeast: false }))
      : countRows(db),
    db.idempotency.count({ where: { ...tenantFilter, status: "in_progress" } }),
    countStuck(db, scope, config, now),
    db.idempotency.findFirst({
      where: { ...tenantFilter, status: "in_progress" },
      orderBy: { createdAt: "asc" },
      select: { createdAt: true },
    }),
    db.idempotency.findFirst({ where: tenantFilter, orderBy: { createdAt: "desc" }, select: { createdAt: true } }),
  ]);
  return {
    records: records.value,
    recordsIsEstimate: records.estimate,
    recordsAtLeast: records.atLeast,
    inProgress,
    stuck,
    oldestInProgressAt: oldest?.createdAt ?? null,
    newestRecordAt: newest?.createdAt ?? null,
  };
}

/** Past this many rows an exact count stops (an index-only walk, tens of milliseconds) and says "100,000+". */
export const RECORDS_COUNT_CAP = 100_000;

/**
 * The planner's estimate of the whole table when it is large and its statistics are fresh (the
 * records facets' rule, planner-statistics.ts: within 2×); otherwise counted, up to the cap. A
 * never-analysed table, or one bulk-loaded since its last ANALYZE, is never shown from reltuples.
 */
async function countRows(db: Db): Promise<{ value: number; estimate: boolean; atLeast: boolean }> {
  const [stats, rowsNow] = await Promise.all([readTableStatistics(db), estimateRows(db, [])]);
  const estimated = wholeTableEstimate(stats, rowsNow, 1);
  if (estimated && estimated.count > RECORDS_COUNT_CAP)
    return { value: estimated.count, estimate: true, atLeast: false };
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::float8 AS n FROM (SELECT 1 FROM idempotency LIMIT ${RECORDS_COUNT_CAP + 1}) capped`;
  const n = row?.n ?? 0;
  return n > RECORDS_COUNT_CAP
    ? { value: RECORDS_COUNT_CAP, estimate: false, atLeast: true }
    : { value: n, estimate: false, atLeast: false };
}

/** The partial `status <> 'completed'` index serves it: only claims without an outcome are read. */
async function countStuck(db: Db, scope: TenantScope, config: IdemConfig, now: Date): Promise<number> {
  const [row] = await db.$queryRaw<
    { n: bigint }[]
  >`SELECT count(*) AS n FROM idempotency WHERE ${stuckCondition(config, now)} ${scope.and()}`;
  return Number(row?.n ?? 0);
}
