import "server-only";
import type { Db } from "@/lib/db/prisma";
import { addStoredHistogram, type StoredHistogram } from "./latency-histogram";
import type { Listed } from "./rolled-rows-cache";
import {
  LATENCY_KINDS,
  figuresOfRaw,
  rollupScope,
  type LatencyKind,
  type LatencyTotal,
  type RawFigures,
  type SourceFigures,
  type SourceScope,
} from "./source-counts";

/** A rolled-up hour's figures of one tool, every tenant of the scope summed: a point of the series. */
export type HourToolSum = { step: Date; tool: string } & SourceFigures;
/** One tenant's figures of one tool over every listed hour: the tables' rows and the percentiles. */
export type TenantToolSum = { tenant: string; tool: string } & SourceFigures;

export type RolledHourSums = { byHour: HourToolSum[]; byTenant: TenantToolSum[]; latency: LatencyTotal[] };

/**
 * The listed rolled-up hours of `scope`, summed in SQL (docs/scaling.md, "Rolled-up reads"): per
 * (hour, tool) for the series and per (tenant, tool) for everything else, histograms merged per
 * (tenant, tool). A 48 h window at 2,000 tenants × 5 tools is 480,000 rows in metrics_hourly; this
 * sends 48 × tools + tenants × tools. Kept per scope under the listed hours and their versions
 * (rolled-rows-cache.ts says why a listed hour never changes), so the next request of the same hour
 * reads nothing; the set changes once an hour.
 */
export async function rolledHourSums(
  db: Db,
  listed: Listed[],
  scope: SourceScope,
  options: { latency: boolean },
): Promise<RolledHourSums> {
  if (listed.length === 0) return { byHour: [], byTenant: [], latency: [] };
  const key = cacheKey(listed, scope, options.latency);
  const cached = sums.get(key);
  if (cached) {
    sums.delete(key); // Map order is insertion order: re-inserting marks it most recently used
    sums.set(key, cached);
    return cached;
  }
  const hours = listed.map((l) => l.at);
  const [counts, histograms, relisted] = await Promise.all([
    summedCounts(db, hours, scope),
    options.latency ? summedHistograms(db, hours, scope) : [],
    db.$queryRaw<Listed[]>`
      SELECT hour AS at, xmin::text AS version FROM metrics_rollup_hour WHERE hour = ANY(${hours}::timestamptz[])`,
  ]);
  const result = { ...counts, latency: latencyTotals(histograms) };
  // An hour rolled again (or deleted) between the listing and these reads: this answer uses what
  // was read, but it is not kept under versions it may not match.
  if (sameVersions(listed, relisted)) {
    sums.set(key, result);
    while (sums.size > MAX_ENTRIES) sums.delete(sums.keys().next().value!);
  }
  return result;
}

/** Forgets every kept sum (tests that rewrite rollup tables behind the listing's back). */
export function forgetRolledHourSums(): void {
  sums.clear();
}

// Few: one per scope a person or the scrape reads, each replaced within the hour.
const MAX_ENTRIES = 200;
const sums = new Map<string, RolledHourSums>();

function cacheKey(listed: Listed[], scope: SourceScope, latency: boolean): string {
  const hours = listed.map((l) => `${l.at.getTime()}@${l.version}`).sort();
  const tenants = scope.tenants ? [...scope.tenants].sort() : null;
  return JSON.stringify([tenants, scope.tenant, scope.tool, latency, hours]);
}

function sameVersions(listed: Listed[], relisted: Listed[]): boolean {
  const versions = new Map(relisted.map((l) => [l.at.getTime(), l.version]));
  return relisted.length === listed.length && listed.every((l) => versions.get(l.at.getTime()) === l.version);
}

type RawSum = { step: Date | null; tenant: string | null; tool: string } & RawFigures;

async function summedCounts(db: Db, hours: Date[], scope: SourceScope): Promise<Omit<RolledHourSums, "latency">> {
  // GROUPING(hour) = 1 on the (tenant, tool) rows; the (hour, tool) rows carry a null tenant.
  const rows = await db.$queryRaw<RawSum[]>`
    SELECT CASE WHEN GROUPING(hour) = 0 THEN hour END AS step, CASE WHEN GROUPING(tenant) = 0 THEN tenant END AS tenant, tool,
           sum(executions)::int8 AS executions, sum(completed)::int8 AS completed, sum(replays_served)::int8 AS replays_served,
           sum(in_flight_rejected)::int8 AS in_flight_rejected, sum(outcome_unknown)::int8 AS outcome_unknown,
           sum(resolved_by_operator)::int8 AS resolved_by_operator, sum(resolved_by_reconciler)::int8 AS resolved_by_reconciler
    FROM metrics_hourly
    WHERE hour = ANY(${hours}::timestamptz[]) ${rollupScope(scope)}
    GROUP BY GROUPING SETS ((hour, tool), (tenant, tool))`;
  const byHour: HourToolSum[] = [];
  const byTenant: TenantToolSum[] = [];
  for (const r of rows) {
    if (r.step !== null) byHour.push({ step: r.step, tool: r.tool, ...figuresOfRaw(r) });
    else byTenant.push({ tenant: r.tenant!, tool: r.tool, ...figuresOfRaw(r) });
  }
  return { byHour, byTenant };
}

type RawHistogram = { tenant: string; tool: string; kind: LatencyKind; histogram: StoredHistogram };

/**
 * Each (tenant, tool)'s histograms over the listed hours, buckets summed, one row per non-empty
 * histogram (not one per bucket: 160,000 rows to move at 2,000 tenants). Empty histograms (most
 * operator and reconciler ones) are left out before the expansion. The bucket leads the GROUP BY so
 * that no index hands the rows over in tenant order: PostgreSQL then sorted the ~16 × rows it takes
 * jsonb_each_text to return 100 each (2.7 s at 2,000 tenants) instead of hashing them (about 1 s).
 */
async function summedHistograms(db: Db, hours: Date[], scope: SourceScope): Promise<RawHistogram[]> {
  return db.$queryRaw<RawHistogram[]>`
    SELECT tenant, tool, kind, jsonb_object_agg(bucket, completions) AS histogram
    FROM (
      SELECT tenant, tool, h.kind, b.key AS bucket, sum(b.value::int8) AS completions
      FROM metrics_hourly
      CROSS JOIN LATERAL (VALUES ('writer', latency), ('operator', operator_latency), ('reconciler', reconciler_latency)) AS h(kind, histogram)
      CROSS JOIN LATERAL jsonb_each_text(h.histogram) AS b
      WHERE hour = ANY(${hours}::timestamptz[]) AND h.histogram <> '{}'::jsonb ${rollupScope(scope)}
      GROUP BY b.key, h.kind, tool, tenant
    ) AS buckets
    GROUP BY kind, tool, tenant`;
}

function latencyTotals(histograms: RawHistogram[]): LatencyTotal[] {
  const totals = new Map<string, LatencyTotal>();
  for (const h of histograms) {
    const key = `${h.tenant}\u0000${h.tool}`;
    let total = totals.get(key);
    if (!total) {
      const empty = Object.fromEntries(LATENCY_KINDS.map((k) => [k, new Map()])) as LatencyTotal["histograms"];
      totals.set(key, (total = { tenant: h.tenant, tool: h.tool, histograms: empty }));
    }
    addStoredHistogram(total.histograms[h.kind], h.histogram);
  }
  return [...totals.values()];
}
