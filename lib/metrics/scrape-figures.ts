import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { deadJobRuns, lastJobRuns, type DeadJobRuns, type LastJobRuns } from "@/lib/audit/job-runs";
import { lastChainVerification, type ChainVerificationStatus } from "@/lib/audit/audit-chain-verifications";
import { stuckCondition } from "@/lib/records/list-records";
import { bucketSumsSql } from "@/lib/repeats/repeat-delay-buckets";
import { stuckAfterMs } from "@/lib/records/stuck-threshold";
import { readTableSize, type TableSize } from "@/lib/records/table-size";
import { RETENTION_MS } from "@/lib/retention/retention-window";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { loadKnownTools } from "@/lib/tool-listings/known-tools";
import { rollupScope, RECONCILER_ACTOR_LABEL, RECONCILER_REASON_PREFIX, UNSCOPED } from "./source-counts";

/** Claims without an outcome, per tenant (folded) and tool ('' = unrecorded). */
export type OpenClaimsRow = {
  tenant: string;
  tool: string;
  inProgress: number;
  stuck: number;
  oldestStuckAt: Date | null;
};
/** What the rollups hold, per tool: counts since the table's first rolled minute, never decreasing. */
export type CounterRow = {
  tool: string;
  executions: number;
  replaysServed: number;
  inFlightRejected: number;
  outcomeUnknown: number;
};
export type ResolutionRow = { tool: string; action: string; by: "operator" | "bulk" | "reconciler"; count: number };

/** Everything one Prometheus scrape reports, as domain figures (lib/metrics/prometheus-exposition.ts writes them out). */
export type ScrapeFigures = {
  now: Date;
  openClaims: OpenClaimsRow[];
  /** The oldest stuck claim per tool (over every tenant the caller sees). */
  oldestStuckByTool: Map<string, Date>;
  unresolvedOutcomeUnknown: Map<string, number>;
  /** Each tool's stuckAfter in ms: configured tools, tools with open claims, and '' (the default). */
  stuckThresholdMs: Map<string, number>;
  /** Tools a listing declares idempotentHint: true for. */
  idempotentHintTools: string[];
  counters: CounterRow[];
  /** Duplicates that got through, by tool and tenant (folded like the others), from the duplicate scan's hours. */
  duplicatesThrough: { tool: string; tenant: string; count: number }[];
  /** Repeats' delays after the first call, by tool: counts per edge of repeat-delay-buckets.ts (+Inf last), their sum in ms. */
  repeatDelays: { tool: string; buckets: number[]; sumMs: number }[];
  resolutions: ResolutionRow[];
  jobs: LastJobRuns;
  /** Runs that died (their heartbeat stopped) since each job's last finished run. */
  deadRuns: DeadJobRuns;
  /** The newest `idem audit verify` run; null when the chain was never verified. */
  auditChain: ChainVerificationStatus | null;
  table: TableSize;
  retentionMs: number;
};

/** The tenant label everything past the configured number of tenants folds into. */
export const OTHER_TENANT = "other";

/**
 * The scrape's reads: each small whatever the table's size (docs/bench.md, "prometheus scrape"), and
 * plain reads under MVCC — no row lock, no FOR UPDATE, nothing a writer's INSERT or UPDATE waits on.
 * - open claims and unresolved outcome_unknown: one index-only pass over the partial not-completed
 *   index (0.3 % of the table), probing a hash of the keys in the partial outcome_unknown event
 *   index (events live 48 h);
 * - counters: the hourly rollup plus the minute slices of hours not rolled up yet — a few rows per
 *   hour, tenant and tool; an hour rolled up replaces its slices with a row at least as large, so a
 *   counter never goes down (across roll-ups and restarts: it lives in the database);
 * - resolutions: the resolution audit rows, index-only on their partial index;
 * - job runs: two index probes each for the last finished and the dead runs; the audit chain's last
 *   verification: one; the table's size: catalog figures and min(created_at).
 */
export async function readScrapeFigures(db: Db, config: IdemConfig, actor: Actor, now: Date): Promise<ScrapeFigures> {
  const scope = actorTenantScope(actor);
  const [open, counterRows, resolutions, [jobs, deadRuns], table, known, duplicateRows, repeatRows, auditChain] =
    await Promise.all([
      // One pass over the open claims, each row's stuck test and outcome_unknown probe evaluated once
      // (OFFSET 0 keeps the inner select from being flattened into the FILTERs, which would repeat them);
      // the outcome_unknown keys are one hashed subplan over their partial index.
      db.$queryRaw<
        {
          tenant: string;
          tool: string;
          in_progress: number;
          stuck: number;
          oldest_stuck: Date | null;
          unknown: number;
        }[]
      >`
      SELECT tenant, tool,
             count(*) FILTER (WHERE in_progress)::int AS in_progress,
             count(*) FILTER (WHERE stuck)::int AS stuck,
             min(created_at) FILTER (WHERE stuck) AS oldest_stuck,
             count(*) FILTER (WHERE in_progress AND unknown)::int AS unknown
        FROM (
          SELECT tenant, COALESCE(tool, '') AS tool, created_at, status = 'in_progress' AS in_progress,
                 ${stuckCondition(config, now)} AS stuck,
                 key IN (SELECT e.key FROM idempotency_event e WHERE e.kind = 'outcome_unknown') AS unknown
            FROM idempotency
           WHERE status <> 'completed' ${scope.and()}
          OFFSET 0
        ) AS open_claims
       GROUP BY 1, 2`,
      db.$queryRaw<
        {
          tenant: string;
          tool: string;
          executions: number;
          replays_served: number;
          in_flight_rejected: number;
          outcome_unknown: number;
        }[]
      >`
      SELECT tenant, tool, sum(executions)::float8 AS executions, sum(replays_served)::float8 AS replays_served,
             sum(in_flight_rejected)::float8 AS in_flight_rejected, sum(outcome_unknown)::float8 AS outcome_unknown
        FROM (
          SELECT tenant, tool, executions, replays_served, in_flight_rejected, outcome_unknown
            FROM metrics_hourly WHERE true ${rollupScope({ ...UNSCOPED, tenants: scope.tenants })}
          UNION ALL
          SELECT tenant, tool, executions, replays_served, in_flight_rejected, outcome_unknown
            FROM metrics_minute m
           WHERE NOT EXISTS (SELECT 1 FROM metrics_rollup_hour h WHERE h.hour = date_trunc('hour', m.minute, 'UTC'))
             ${rollupScope({ ...UNSCOPED, tenants: scope.tenants })}
        ) AS rolled
       GROUP BY tenant, tool`,
      // The expressions are those of audit_log_resolutions_idx (migration 20261220010000), so the count is index-only.
      db.$queryRaw<{ action: string; tool: string; by: ResolutionRow["by"]; count: number }[]>`
      SELECT action, COALESCE(before ->> 'tool', '') AS tool,
             CASE WHEN actor = ${RECONCILER_ACTOR_LABEL} OR starts_with(COALESCE(reason, ''), ${RECONCILER_REASON_PREFIX}) THEN 'reconciler'
                  WHEN starts_with(COALESCE(reason, ''), 'bulk: ') THEN 'bulk' ELSE 'operator' END AS by,
             count(*)::float8 AS count
        FROM audit_log
       WHERE action IN ('record.complete', 'record.release', 'record.force_release')
         ${scope.and(Prisma.sql`COALESCE(tenant, before ->> 'tenant')`)}
       GROUP BY 1, 2, 3`,
      Promise.all([lastJobRuns(db), deadJobRuns(db, now)]),
      readTableSize(db),
      loadKnownTools(db, config),
      // A few rows an hour, tenant and tool: the hours are never rewritten downwards, so the counter never falls.
      db.$queryRaw<{ tenant: string; tool: string; count: number }[]>`
      SELECT tenant, tool, sum(duplicates)::float8 AS count FROM duplicate_scan_hourly
       WHERE duplicates > 0 ${scope.and()}
       GROUP BY tenant, tool`,
      // The histogram's buckets summed per tool over every hour the scan counted: like the counters, never falling.
      db.$queryRaw<{ tool: string; buckets: number[]; sum_ms: number }[]>`
      SELECT tool, ${Prisma.raw(bucketSumsSql("buckets"))} AS buckets, sum(delay_ms_sum) AS sum_ms
        FROM repeat_delay_hourly WHERE true ${scope.and()} GROUP BY tool`,
      lastChainVerification(db),
    ]);

  const keep = keptTenants(
    counterRows.map((r) => ({ tenant: r.tenant, weight: r.executions })),
    open.map((r) => r.tenant),
    config.prometheus.tenantLabels,
  );
  const fold = (tenant: string) => (keep.has(tenant) ? tenant : OTHER_TENANT);
  const openClaims = new Map<string, OpenClaimsRow>();
  const oldestStuckByTool = new Map<string, Date>();
  for (const r of open) {
    const tenant = fold(r.tenant);
    const id = `${tenant}\u0000${r.tool}`;
    const row = openClaims.get(id) ?? { tenant, tool: r.tool, inProgress: 0, stuck: 0, oldestStuckAt: null };
    row.inProgress += r.in_progress;
    row.stuck += r.stuck;
    if (r.oldest_stuck && (row.oldestStuckAt === null || r.oldest_stuck < row.oldestStuckAt))
      row.oldestStuckAt = r.oldest_stuck;
    openClaims.set(id, row);
    const oldest = oldestStuckByTool.get(r.tool);
    if (r.oldest_stuck && (!oldest || r.oldest_stuck < oldest)) oldestStuckByTool.set(r.tool, r.oldest_stuck);
  }

  const unresolvedOutcomeUnknown = new Map<string, number>();
  for (const r of open)
    if (r.unknown > 0) unresolvedOutcomeUnknown.set(r.tool, (unresolvedOutcomeUnknown.get(r.tool) ?? 0) + r.unknown);

  const counters = new Map<string, CounterRow>();
  for (const r of counterRows) {
    const row = counters.get(r.tool) ?? {
      tool: r.tool,
      executions: 0,
      replaysServed: 0,
      inFlightRejected: 0,
      outcomeUnknown: 0,
    };
    row.executions += r.executions;
    row.replaysServed += r.replays_served;
    row.inFlightRejected += r.in_flight_rejected;
    row.outcomeUnknown += r.outcome_unknown;
    counters.set(r.tool, row);
  }

  const duplicatesThrough = new Map<string, { tool: string; tenant: string; count: number }>();
  for (const r of duplicateRows) {
    const tenant = fold(r.tenant);
    const id = `${tenant}\u0000${r.tool}`;
    const row = duplicatesThrough.get(id) ?? { tool: r.tool, tenant, count: 0 };
    row.count += r.count;
    duplicatesThrough.set(id, row);
  }

  const stuckThresholdMs = new Map<string, number>([["", config.defaultStuckAfter]]);
  for (const tool of [...Object.keys(config.tools), ...open.map((r) => r.tool)])
    if (tool !== "") stuckThresholdMs.set(tool, stuckAfterMs(config, tool));

  return {
    now,
    openClaims: [...openClaims.values()],
    oldestStuckByTool,
    unresolvedOutcomeUnknown,
    stuckThresholdMs,
    idempotentHintTools: [...known].filter(([, tool]) => tool.declaredIdempotentHint === true).map(([name]) => name),
    counters: [...counters.values()],
    duplicatesThrough: [...duplicatesThrough.values()],
    repeatDelays: repeatRows.map((r) => ({ tool: r.tool, buckets: r.buckets, sumMs: r.sum_ms })),
    resolutions: resolutions.map((r) => ({
      tool: r.tool,
      action: r.action.replace(/^record\./, ""),
      by: r.by,
      count: r.count,
    })),
    jobs,
    deadRuns,
    auditChain,
    table,
    retentionMs: RETENTION_MS,
  };
}

/**
 * The tenants that keep their own label: the `limit` with the most executions in the rollups (ties
 * by name), so the choice moves only when the traffic does. A tenant with open claims but no rolled
 * traffic yet (a new one) ranks after them.
 */
export function keptTenants(
  weighted: { tenant: string; weight: number }[],
  others: string[],
  limit: number,
): Set<string> {
  const weight = new Map<string, number>();
  for (const { tenant, weight: w } of weighted) weight.set(tenant, (weight.get(tenant) ?? 0) + w);
  for (const tenant of others) if (!weight.has(tenant)) weight.set(tenant, 0);
  const ranked = [...weight].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return new Set(ranked.slice(0, limit).map(([tenant]) => tenant));
}
