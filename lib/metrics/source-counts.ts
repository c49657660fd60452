import "server-only";
import { Prisma } from "@/generated/prisma/client";
import { tenantScopeOf } from "@/lib/tenancy/tenant-scope";
import { latencyBucketSql, type LatencyHistogram } from "./latency-histogram";

/**
 * The figures of a time range, computed from the base tables (idempotency, idempotency_event,
 * audit_log) and grouped by step, tenant and tool. The roll-up runs it for one closed hour at a
 * time, the minute roll-up for settled minutes; the metrics query runs it live for the last minute
 * or so (window-figures.ts). Every part is an index range on its time column: idempotency (created_at) and
 * (updated_at, partial), idempotency_event (at), audit_log (at).
 *
 * What counts where — each event is counted in the step in which it happened:
 * - executions: a claim, in the step of its created_at. A claim an operator released (deleted)
 *   before its hour was rolled up is counted from the audit row's snapshot of it (before.createdAt),
 *   so a release never makes a claim vanish from the figures, whenever it happens.
 * - completed: a completion, in the step of its updated_at — so a claim made at 10:50 and
 *   completed at 12:10 counts as an execution at 10:00 and a completion at 12:00, and a closed
 *   hour never has to be reopened. Writers that complete without setting updated_at (the reference
 *   writer's plain UPDATE, docs/architecture.md#the-reference-writer) give no completion time: those are counted at their claim's step, if
 *   completed by the time that step is rolled up, and add nothing to the latency histogram.
 * - replays served, in-flight rejections, outcome unknown: the writer's events, by `at`.
 * - resolved by operator / by reconciler: audit rows record.complete, record.release and
 *   record.force_release by `at`; the reconciler's are those of actor system:reconciler or with
 *   its reason prefix "reconciler: " (a reconcile run started by a person under their own name).
 * - time to complete (writers only): updated_at − created_at of each timed completion a writer
 *   made, in its completion step. A completion the console made — a resolve, a bulk apply, the
 *   reconciler — is known by its audit row record.complete, written in the same transaction as
 *   the compare-and-set, whose after.version is the row's updated_at: it is left out, since its
 *   delay is how long the claim waited for a person or a sweep, not how long the writer took.
 * - resolution delay: at − before.createdAt of each record.complete / record.release /
 *   record.force_release audit row, in its step, in the operators' or the reconciler's histogram
 *   (the same split as resolved by operator / by reconciler).
 *
 * tool '' stands for a writer that does not record the tool (NULL).
 */

export const RECONCILER_ACTOR_LABEL = "system:reconciler";
export const RECONCILER_REASON_PREFIX = "reconciler: ";

export type SourceScope = {
  /** The actor's tenants; null = every tenant. */
  tenants: string[] | null;
  tenant: string | null;
  /** A tool name, '' for unrecorded, null for every tool. */
  tool: string | null;
};

export const UNSCOPED: SourceScope = { tenants: null, tenant: null, tool: null };

/** The figures counted from the base tables (see above), for one group. */
export type SourceFigures = {
  executions: number;
  completed: number;
  replaysServed: number;
  inFlightRejected: number;
  outcomeUnknown: number;
  resolvedByOperator: number;
  resolvedByReconciler: number;
};

export type CountRow = { step: Date; tenant: string; tool: string } & SourceFigures;

export const NO_FIGURES: SourceFigures = {
  executions: 0,
  completed: 0,
  replaysServed: 0,
  inFlightRejected: 0,
  outcomeUnknown: 0,
  resolvedByOperator: 0,
  resolvedByReconciler: 0,
};

/** Adds one group's figures into a sum (every figure is a count: they add across steps, tenants and tools). */
export function addFigures(sum: SourceFigures, row: SourceFigures): void {
  sum.executions += row.executions;
  sum.completed += row.completed;
  sum.replaysServed += row.replaysServed;
  sum.inFlightRejected += row.inFlightRejected;
  sum.outcomeUnknown += row.outcomeUnknown;
  sum.resolvedByOperator += row.resolvedByOperator;
  sum.resolvedByReconciler += row.resolvedByReconciler;
}

/** Whose delay a histogram holds: the writers' time to complete, or the console's resolutions by who made them. */
export const LATENCY_KINDS = ["writer", "operator", "reconciler"] as const;
export type LatencyKind = (typeof LATENCY_KINDS)[number];

/**
 * The histograms of one tenant and tool over the whole range (the report's percentiles have no
 * step): writers' time to complete, and the console's resolution delays by who resolved.
 */
export type LatencyTotal = { tenant: string; tool: string; histograms: Record<LatencyKind, LatencyHistogram> };

export type LatencyRow = {
  step: Date;
  tenant: string;
  tool: string;
  kind: LatencyKind;
  bucket: number;
  completions: number;
};

type Sql = Pick<Prisma.TransactionClient, "$queryRaw">;

// date_bin needs an origin; any UTC hour boundary gives UTC-aligned steps, whatever the session's time zone.
const ORIGIN = "2000-01-01T00:00:00Z";

function stepSql(column: Prisma.Sql, stepMs: number): Prisma.Sql {
  return Prisma.sql`date_bin(${`${stepMs / 1000} seconds`}::interval, ${column}, ${ORIGIN}::timestamptz)`;
}

/** The actor's tenants and the tenant / tool filters on the given columns (the one place this rule is written). */
export function scopeSql(tenant: Prisma.Sql, tool: Prisma.Sql, scope: SourceScope): Prisma.Sql {
  const parts: Prisma.Sql[] = [...tenantScopeOf(scope.tenants).conditions(tenant)];
  if (scope.tenant !== null) parts.push(Prisma.sql`${tenant} = ${scope.tenant}`);
  if (scope.tool !== null) parts.push(Prisma.sql`${tool} = ${scope.tool}`);
  return parts.length > 0 ? Prisma.sql`AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

const ROW_TOOL = Prisma.sql`COALESCE(tool, '')`;
/** The scope on the base table (tool NULL read as ''). */
export function rowScope(scope: SourceScope): Prisma.Sql {
  return scopeSql(Prisma.sql`tenant`, ROW_TOOL, scope);
}
/** The scope on the rollup tables, where an unrecorded tool is stored as ''. */
export function rollupScope(scope: SourceScope): Prisma.Sql {
  return scopeSql(Prisma.sql`tenant`, Prisma.sql`tool`, scope);
}
const AUDIT_TENANT = Prisma.sql`COALESCE(tenant, before->>'tenant')`;
const AUDIT_TOOL = Prisma.sql`COALESCE(before->>'tool', '')`;
/** The scope on audit rows about a record: its tenant and tool as the row's snapshot holds them. */
export function auditScope(scope: SourceScope): Prisma.Sql {
  return scopeSql(AUDIT_TENANT, AUDIT_TOOL, scope);
}
const RELEASED_CREATED_AT = Prisma.sql`(before->>'createdAt')::timestamptz`;
/** An audit row of the reconciler: its own actor, or a reconcile run started under a person's name. */
const IS_RECONCILER = Prisma.sql`(actor = ${RECONCILER_ACTOR_LABEL} OR starts_with(COALESCE(reason, ''), ${RECONCILER_REASON_PREFIX}))`;

/** The seven figures as a rollup or counting statement returns them: snake_case sums, as int8. */
export type RawFigures = {
  executions: bigint;
  completed: bigint;
  replays_served: bigint;
  in_flight_rejected: bigint;
  outcome_unknown: bigint;
  resolved_by_operator: bigint;
  resolved_by_reconciler: bigint;
};

export function figuresOfRaw(r: RawFigures): SourceFigures {
  return {
    executions: Number(r.executions),
    completed: Number(r.completed),
    replaysServed: Number(r.replays_served),
    inFlightRejected: Number(r.in_flight_rejected),
    outcomeUnknown: Number(r.outcome_unknown),
    resolvedByOperator: Number(r.resolved_by_operator),
    resolvedByReconciler: Number(r.resolved_by_reconciler),
  };
}

type RawCountRow = { step: Date; tenant: string; tool: string } & RawFigures;

export async function sourceCounts(
  db: Sql,
  range: { from: Date; to: Date; stepMs: number },
  scope: SourceScope,
): Promise<CountRow[]> {
  const { from, to, stepMs } = range;
  const rows = await db.$queryRaw<RawCountRow[]>`
    WITH claims AS (
      SELECT ${stepSql(Prisma.sql`created_at`, stepMs)} AS step, tenant, ${ROW_TOOL} AS tool,
             count(*) AS executions,
             count(*) FILTER (WHERE status = 'completed' AND updated_at IS NULL) AS completed
      FROM idempotency
      WHERE created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz ${rowScope(scope)}
      GROUP BY 1, 2, 3
    ), released_claims AS (
      SELECT ${stepSql(RELEASED_CREATED_AT, stepMs)} AS step, ${AUDIT_TENANT} AS tenant, ${AUDIT_TOOL} AS tool, count(*) AS executions
      FROM audit_log
      WHERE action IN ('record.release', 'record.force_release') AND at >= ${from}::timestamptz
        AND ${RELEASED_CREATED_AT} >= ${from}::timestamptz AND ${RELEASED_CREATED_AT} < ${to}::timestamptz
        ${scopeSql(AUDIT_TENANT, AUDIT_TOOL, scope)}
      GROUP BY 1, 2, 3
    ), completions AS (
      SELECT ${stepSql(Prisma.sql`updated_at`, stepMs)} AS step, tenant, ${ROW_TOOL} AS tool, count(*) AS completed
      FROM idempotency
      WHERE updated_at >= ${from}::timestamptz AND updated_at < ${to}::timestamptz AND status = 'completed'
        ${rowScope(scope)}
      GROUP BY 1, 2, 3
    ), events AS (
      SELECT ${stepSql(Prisma.sql`at`, stepMs)} AS step, tenant, ${ROW_TOOL} AS tool,
             count(*) FILTER (WHERE kind = 'replay_served') AS replays_served,
             count(*) FILTER (WHERE kind = 'in_flight_rejected') AS in_flight_rejected,
             count(*) FILTER (WHERE kind = 'outcome_unknown') AS outcome_unknown
      FROM idempotency_event
      WHERE at >= ${from}::timestamptz AND at < ${to}::timestamptz ${rowScope(scope)}
      GROUP BY 1, 2, 3
    ), resolutions AS (
      SELECT ${stepSql(Prisma.sql`at`, stepMs)} AS step, ${AUDIT_TENANT} AS tenant, ${AUDIT_TOOL} AS tool,
             count(*) FILTER (WHERE NOT ${IS_RECONCILER}) AS resolved_by_operator,
             count(*) FILTER (WHERE ${IS_RECONCILER}) AS resolved_by_reconciler
      FROM audit_log
      WHERE action IN ('record.complete', 'record.release', 'record.force_release') AND at >= ${from}::timestamptz AND at < ${to}::timestamptz
        ${scopeSql(AUDIT_TENANT, AUDIT_TOOL, scope)}
      GROUP BY 1, 2, 3
    )
    SELECT step, tenant, tool,
           sum(executions)::int8 AS executions, sum(completed)::int8 AS completed,
           sum(replays_served)::int8 AS replays_served, sum(in_flight_rejected)::int8 AS in_flight_rejected,
           sum(outcome_unknown)::int8 AS outcome_unknown,
           sum(resolved_by_operator)::int8 AS resolved_by_operator, sum(resolved_by_reconciler)::int8 AS resolved_by_reconciler
    FROM (
      SELECT step, tenant, tool, executions, completed, 0 AS replays_served, 0 AS in_flight_rejected, 0 AS outcome_unknown, 0 AS resolved_by_operator, 0 AS resolved_by_reconciler FROM claims
      UNION ALL SELECT step, tenant, tool, executions, 0, 0, 0, 0, 0, 0 FROM released_claims
      UNION ALL SELECT step, tenant, tool, 0, completed, 0, 0, 0, 0, 0 FROM completions
      UNION ALL SELECT step, tenant, tool, 0, 0, replays_served, in_flight_rejected, outcome_unknown, 0, 0 FROM events
      UNION ALL SELECT step, tenant, tool, 0, 0, 0, 0, 0, resolved_by_operator, resolved_by_reconciler FROM resolutions
    ) AS parts
    GROUP BY step, tenant, tool`;
  return rows.map((r) => ({ step: r.step, tenant: r.tenant, tool: r.tool, ...figuresOfRaw(r) }));
}

const COMPLETION_MS = "(extract(epoch FROM (i.updated_at - i.created_at)) * 1000)::float8";
const RESOLUTION_MS = "(extract(epoch FROM (at - (before->>'createdAt')::timestamptz)) * 1000)::float8";
/**
 * A console completion's audit row is written in the transaction that set updated_at, so its `at`
 * is within that transaction's length (a processor call, bounded well under a minute) of it; an
 * hour either side keeps the audit read an index range on `at` without ever missing one.
 */
const CONSOLE_COMPLETION_SLACK = "1 hour";
/**
 * The updated_at a console completion set: the snapshot's `version` (updated_at to the microsecond,
 * lib/records/visible-records.ts); `updatedAt` went through a JavaScript Date and lost the microseconds.
 */
const CONSOLE_COMPLETED_AT = Prisma.sql`COALESCE((after->>'version')::timestamptz, (after->>'updatedAt')::timestamptz)`;

/** The histograms of a range: writers' time to complete, and the console's resolution delays by who resolved. */
export async function sourceLatency(
  db: Sql,
  range: { from: Date; to: Date; stepMs: number },
  scope: SourceScope,
): Promise<LatencyRow[]> {
  const { from, to, stepMs } = range;
  // MATERIALIZED: evaluated once. Inlined, the anti-join re-read (and re-cast) every record.complete row of
  // the slack window for each completion of the range: 11.9 ms for 155 completions against 51 audit rows.
  const rows = await db.$queryRaw<
    { step: Date; tenant: string; tool: string; kind: LatencyKind; bucket: number; completions: bigint }[]
  >`
    WITH console_completions AS MATERIALIZED (
      SELECT key, ${CONSOLE_COMPLETED_AT} AS updated_at
      FROM audit_log
      WHERE action = 'record.complete'
        AND at >= ${from}::timestamptz - ${CONSOLE_COMPLETION_SLACK}::interval AND at < ${to}::timestamptz + ${CONSOLE_COMPLETION_SLACK}::interval
        AND ${CONSOLE_COMPLETED_AT} >= ${from}::timestamptz AND ${CONSOLE_COMPLETED_AT} < ${to}::timestamptz
    )
    SELECT ${stepSql(Prisma.sql`i.updated_at`, stepMs)} AS step, i.tenant, COALESCE(i.tool, '') AS tool, 'writer' AS kind,
           ${Prisma.raw(latencyBucketSql(COMPLETION_MS))} AS bucket, count(*)::int8 AS completions
    FROM idempotency i
    WHERE i.updated_at >= ${from}::timestamptz AND i.updated_at < ${to}::timestamptz AND i.status = 'completed'
      AND NOT EXISTS (SELECT 1 FROM console_completions c WHERE c.key = i.key AND c.updated_at = i.updated_at)
      ${scopeSql(Prisma.sql`i.tenant`, Prisma.sql`COALESCE(i.tool, '')`, scope)}
    GROUP BY 1, 2, 3, 4, 5
    UNION ALL
    SELECT ${stepSql(Prisma.sql`at`, stepMs)} AS step, ${AUDIT_TENANT} AS tenant, ${AUDIT_TOOL} AS tool,
           CASE WHEN ${IS_RECONCILER} THEN 'reconciler' ELSE 'operator' END AS kind,
           ${Prisma.raw(latencyBucketSql(RESOLUTION_MS))} AS bucket, count(*)::int8 AS completions
    FROM audit_log
    WHERE action IN ('record.complete', 'record.release', 'record.force_release') AND at >= ${from}::timestamptz AND at < ${to}::timestamptz
      AND before->>'createdAt' IS NOT NULL
      ${scopeSql(AUDIT_TENANT, AUDIT_TOOL, scope)}
    GROUP BY 1, 2, 3, 4, 5`;
  return rows.map((r) => ({
    step: r.step,
    tenant: r.tenant,
    tool: r.tool,
    kind: r.kind,
    bucket: Number(r.bucket),
    completions: Number(r.completions),
  }));
}
