import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/auth/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { stuckCondition } from "@/lib/records/list-records";
import { tenantList } from "@/lib/records/tenant-scope";
import { addToHistogram, histogramPercentileMs } from "./latency-histogram";
import { UNRECORDED_TOOL, type MetricsQuery } from "./metrics-params";
import { emptyTotals, suppressionRate, type MetricsFigures, type MetricsReport, type SeriesPoint, type Totals } from "./metrics-report";
import { HOUR_MS, floorTo, windowBounds, windowSteps } from "./metrics-window";
import { lastClosedHour, rollUpClosedHours } from "./rollup";
import { sourceCounts, sourceLatency, type CountRow, type LatencyRow, type SourceScope } from "./source-counts";

/**
 * A tool "records events" when its writer appended any event in this long: a tool with claims
 * and no event of any kind in a week is taken to have a writer that does not record them, and
 * its replay / rejection / unknown figures read "not recorded" rather than a misleading 0.
 */
export const RECORDING_LOOKBACK_MS = 7 * 24 * HOUR_MS;

export type GetMetricsOptions = {
  /** Roll up closed hours before reading (default true). */
  rollUp?: boolean;
};

/**
 * The duplicate-suppression figures of one window, limited to the actor's tenants: closed hours
 * from the hourly rollup, the rest (the current hour; all of the 1 h window) live from the base
 * tables — never a GROUP BY over the whole window at request time.
 */
export async function getMetrics(db: Db, config: IdemConfig, actor: Actor, query: MetricsQuery, now: Date, options: GetMetricsOptions = {}): Promise<MetricsReport> {
  const rollup = options.rollUp === false ? null : await rollUpClosedHours(db, now);
  const bounds = windowBounds(query.window, now);
  const scope: SourceScope = {
    tenants: tenantList(actor),
    tenant: query.tenant,
    tool: query.tool === UNRECORDED_TOOL ? "" : query.tool,
  };
  const steps = windowSteps(bounds);

  // Which steps are final in the rollup: only whole hours can be (the 1 h window's 5-minute steps never are).
  const rolledHours = bounds.stepMs === HOUR_MS ? await rolledUpHours(db, bounds.from, bounds.to) : new Set<number>();
  const liveSteps = steps.filter((s) => !rolledHours.has(s.getTime()));
  const firstLive = liveSteps[0];

  const [rolledCounts, rolledLatency, liveCounts, liveLatency, stuck, sideEffects, recording] = await Promise.all([
    rolledHours.size > 0 ? rolledUpCounts(db, bounds.from, bounds.to, scope) : Promise.resolve([]),
    rolledHours.size > 0 ? rolledUpLatency(db, bounds.from, bounds.to, scope) : Promise.resolve([]),
    firstLive ? sourceCounts(db, { from: firstLive, to: bounds.to, stepMs: bounds.stepMs }, scope) : Promise.resolve([]),
    firstLive ? sourceLatency(db, { from: firstLive, to: bounds.to, stepMs: bounds.stepMs }, scope) : Promise.resolve([]),
    stuckNow(db, config, scope, now),
    reportedSideEffects(db, floorTo(bounds.from, HOUR_MS), bounds.to, scope),
    toolsRecordingEvents(db, scope.tenants, now),
  ]);
  // A live range starting at the first unrolled step may cover later steps that are rolled up (a hole in the rollup): those come from the rollup.
  const counts = [...rolledCounts, ...liveCounts.filter((r) => !rolledHours.has(r.step.getTime()))];
  const latency = [...rolledLatency, ...liveLatency.filter((r) => !rolledHours.has(r.step.getTime()))];

  const byTool = new Map<string, Totals>();
  const byTenant = new Map<string, Totals>();
  const byStep = new Map<number, Totals>(steps.map((s) => [s.getTime(), emptyTotals()]));
  const overall = emptyTotals();
  const groupsOf = (tenant: string, tool: string, step?: Date) => {
    const groups = [group(byTool, tool), group(byTenant, tenant), overall];
    const point = step ? byStep.get(step.getTime()) : undefined;
    if (point) groups.push(point);
    return groups;
  };

  for (const row of counts) {
    const records = recording.has(row.tool);
    for (const t of groupsOf(row.tenant, row.tool, row.step)) addCounts(t, row, records);
  }
  for (const row of latency) for (const t of groupsOf(row.tenant, row.tool)) addToHistogram(t.latency, row.bucket, row.completions);
  for (const row of stuck) for (const t of groupsOf(row.tenant, row.tool)) t.stuckNow += row.stuck;
  for (const row of sideEffects) {
    for (const t of groupsOf(row.tenant, row.tool)) {
      t.operations += row.operations;
      t.sideEffects += row.sideEffects;
      t.sideEffectsReported = true;
    }
  }
  // A group records events when any of its tools does — also when it had no claims in the window (a real 0).
  for (const [tool, t] of byTool) t.anyRecordingTool = recording.has(tool);
  const anyRecording = scope.tool !== null ? recording.has(scope.tool) : recording.size > 0;
  overall.anyRecordingTool ||= anyRecording;

  const tools = [...byTool].map(([tool, t]) => ({ tool: tool === "" ? null : tool, ...figures(t) }));
  tools.sort((a, b) => risk(b) - risk(a) || b.executions - a.executions || (a.tool ?? "").localeCompare(b.tool ?? ""));
  const tenants = [...byTenant].map(([tenant, t]) => ({ tenant, ...figures(t) })).sort((a, b) => risk(b) - risk(a) || b.executions - a.executions || a.tenant.localeCompare(b.tenant));
  const series: SeriesPoint[] = steps.map((s) => seriesPoint(s, byStep.get(s.getTime()) ?? emptyTotals(), anyRecording));

  return {
    window: bounds.window,
    from: bounds.from.toISOString(),
    to: bounds.to.toISOString(),
    stepMs: bounds.stepMs,
    filter: { tool: query.tool, tenant: query.tenant },
    overall: figures(overall),
    tools,
    tenants,
    series,
    source: { rolledUpSteps: steps.length - liveSteps.length, liveSteps: liveSteps.length, hoursRolledUpNow: rollup?.rolledUp.length ?? 0 },
  };
}

function group<K>(map: Map<K, Totals>, key: K): Totals {
  let t = map.get(key);
  if (!t) map.set(key, (t = emptyTotals()));
  return t;
}

function addCounts(t: Totals, row: CountRow, records: boolean): void {
  t.executions += row.executions;
  t.completed += row.completed;
  t.replaysServed += row.replaysServed;
  t.inFlightRejected += row.inFlightRejected;
  t.outcomeUnknown += row.outcomeUnknown;
  t.resolvedByOperator += row.resolvedByOperator;
  t.resolvedByReconciler += row.resolvedByReconciler;
  if (records) {
    t.executionsOfRecordingTools += row.executions;
    t.anyRecordingTool = true;
  }
}

function figures(t: Totals): MetricsFigures {
  const recorded = t.anyRecordingTool;
  return {
    executions: t.executions,
    completed: t.completed,
    replaysServed: recorded ? t.replaysServed : null,
    inFlightRejected: recorded ? t.inFlightRejected : null,
    suppressionRate: suppressionRate(t),
    outcomeUnknown: recorded ? t.outcomeUnknown : null,
    stuckNow: t.stuckNow,
    resolvedByOperator: t.resolvedByOperator,
    resolvedByReconciler: t.resolvedByReconciler,
    completeP50Ms: histogramPercentileMs(t.latency, 0.5),
    completeP95Ms: histogramPercentileMs(t.latency, 0.95),
    sideEffectsPerOperation: t.sideEffectsReported && t.operations > 0 ? t.sideEffects / t.operations : null,
    eventsRecorded: recorded,
  };
}

function seriesPoint(step: Date, t: Totals, anyRecording: boolean): SeriesPoint {
  // A step with no claims of a recording tool still has a real 0 of events when the selection records them.
  const recorded = anyRecording;
  return {
    at: step.toISOString(),
    executions: t.executions,
    completed: t.completed,
    replaysServed: recorded ? t.replaysServed : null,
    inFlightRejected: recorded ? t.inFlightRejected : null,
    outcomeUnknown: recorded ? t.outcomeUnknown : null,
    suppressionRate: recorded ? suppressionRate({ ...t, anyRecordingTool: true }) : null,
  };
}

function risk(f: MetricsFigures): number {
  return f.stuckNow + (f.outcomeUnknown ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Reads

function rollupScope(scope: SourceScope): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (scope.tenants !== null) parts.push(Prisma.sql`tenant = ANY(${scope.tenants}::text[])`);
  if (scope.tenant !== null) parts.push(Prisma.sql`tenant = ${scope.tenant}`);
  if (scope.tool !== null) parts.push(Prisma.sql`tool = ${scope.tool}`);
  return parts.length > 0 ? Prisma.sql`AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

async function rolledUpHours(db: Db, from: Date, to: Date): Promise<Set<number>> {
  const rows = await db.$queryRaw<{ hour: Date }[]>`SELECT hour FROM metrics_rollup_hour WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz`;
  return new Set(rows.map((r) => r.hour.getTime()));
}

/** The rollup-read query (its EXPLAIN is in the report of issue #6): a primary-key range on (hour, …). */
async function rolledUpCounts(db: Db, from: Date, to: Date, scope: SourceScope): Promise<CountRow[]> {
  const rows = await db.$queryRaw<
    { step: Date; tenant: string; tool: string; executions: bigint; completed: bigint; replays_served: bigint; in_flight_rejected: bigint; outcome_unknown: bigint; resolved_by_operator: bigint; resolved_by_reconciler: bigint }[]
  >`
    SELECT hour AS step, tenant, tool, executions, completed, replays_served, in_flight_rejected, outcome_unknown, resolved_by_operator, resolved_by_reconciler
    FROM metrics_hourly
    WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz
      AND hour IN (SELECT hour FROM metrics_rollup_hour WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz)
      ${rollupScope(scope)}`;
  return rows.map((r) => ({
    step: r.step, tenant: r.tenant, tool: r.tool,
    executions: Number(r.executions), completed: Number(r.completed), replaysServed: Number(r.replays_served),
    inFlightRejected: Number(r.in_flight_rejected), outcomeUnknown: Number(r.outcome_unknown),
    resolvedByOperator: Number(r.resolved_by_operator), resolvedByReconciler: Number(r.resolved_by_reconciler),
  }));
}

async function rolledUpLatency(db: Db, from: Date, to: Date, scope: SourceScope): Promise<LatencyRow[]> {
  const rows = await db.$queryRaw<{ step: Date; tenant: string; tool: string; bucket: number; completions: bigint }[]>`
    SELECT hour AS step, tenant, tool, bucket, completions FROM metrics_hourly_latency
    WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz ${rollupScope(scope)}`;
  return rows.map((r) => ({ step: r.step, tenant: r.tenant, tool: r.tool, bucket: Number(r.bucket), completions: Number(r.completions) }));
}

/** Stuck claims right now, per tenant and tool, by each tool's threshold (the partial status index). */
async function stuckNow(db: Db, config: IdemConfig, scope: SourceScope, now: Date): Promise<{ tenant: string; tool: string; stuck: number }[]> {
  const rows = await db.$queryRaw<{ tenant: string; tool: string; stuck: bigint }[]>`
    SELECT tenant, COALESCE(tool, '') AS tool, count(*)::int8 AS stuck FROM idempotency
    WHERE ${stuckCondition(config, now)} ${rollupScopeOnRows(scope)}
    GROUP BY 1, 2`;
  return rows.map((r) => ({ tenant: r.tenant, tool: r.tool, stuck: Number(r.stuck) }));
}

function rollupScopeOnRows(scope: SourceScope): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (scope.tenants !== null) parts.push(Prisma.sql`tenant = ANY(${scope.tenants}::text[])`);
  if (scope.tenant !== null) parts.push(Prisma.sql`tenant = ${scope.tenant}`);
  if (scope.tool !== null) parts.push(Prisma.sql`COALESCE(tool, '') = ${scope.tool}`);
  return parts.length > 0 ? Prisma.sql`AND ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

/** Processor reports by claim hour: the hours overlapping the window (the 1 h window reads its two or so hours whole). */
async function reportedSideEffects(db: Db, from: Date, to: Date, scope: SourceScope): Promise<{ tenant: string; tool: string; operations: number; sideEffects: number }[]> {
  const rows = await db.$queryRaw<{ tenant: string; tool: string; operations: bigint; side_effects: bigint }[]>`
    SELECT tenant, tool, sum(operations)::int8 AS operations, sum(side_effects)::int8 AS side_effects FROM processor_side_effect_count
    WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz ${rollupScope(scope)}
    GROUP BY 1, 2`;
  return rows.map((r) => ({ tenant: r.tenant, tool: r.tool, operations: Number(r.operations), sideEffects: Number(r.side_effects) }));
}

/**
 * Tools ('' = unrecorded) with any writer event in the lookback, within the actor's tenants but
 * regardless of the tenant filter: whether a tool's writer records events is a property of the
 * writer, so a tenant with no replays shows a real 0. Rolled-up hours from the rollup, the rest
 * from the events table (an index range of an hour or so).
 */
export async function toolsRecordingEvents(db: Db, tenants: string[] | null, now: Date): Promise<Set<string>> {
  const since = new Date(now.getTime() - RECORDING_LOOKBACK_MS);
  const liveFrom = new Date(lastClosedHour(now).getTime() + HOUR_MS);
  const tenantSql = tenants !== null ? Prisma.sql`AND tenant = ANY(${tenants}::text[])` : Prisma.empty;
  const rows = await db.$queryRaw<{ tool: string }[]>`
    SELECT DISTINCT tool FROM metrics_hourly
    WHERE hour >= ${since}::timestamptz AND (replays_served + in_flight_rejected + outcome_unknown) > 0 ${tenantSql}
    UNION
    SELECT DISTINCT COALESCE(tool, '') FROM idempotency_event
    WHERE at >= LEAST(${liveFrom}::timestamptz, COALESCE((SELECT max(hour) + interval '1 hour' FROM metrics_rollup_hour), ${since}::timestamptz)) ${tenantSql}`;
  return new Set(rows.map((r) => r.tool));
}
