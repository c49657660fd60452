import "server-only";
import { duplicateFigures } from "@/lib/duplicates/duplicate-figures";
import { repeatDelayFigures } from "@/lib/repeats/repeat-figures";
import { atOneScanSnapshot } from "@/lib/scan/scan-snapshot";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { addToHistogram, histogramPercentileMs } from "./latency-histogram";
import { UNRECORDED_TOOL, type MetricsQuery } from "./metrics-params";
import { loadKnownTools } from "@/lib/tool-listings/known-tools";
import {
  emptyTotals,
  isSmallSample,
  suppressionCalls,
  suppressionRate,
  type MetricsFigures,
  type MetricsReport,
  type SeriesPoint,
  type Totals,
} from "./metrics-report";
import { HOUR_MS, floorTo, windowBounds, windowSteps } from "./metrics-window";
import { firstSliceMinute } from "./minute-rollup";
import { rollUpBeforeRead } from "./roll-up-settled";
import { lastClosedHour } from "./rollup";
import { LATENCY_KINDS, addFigures, rollupScope, type SourceFigures, type SourceScope } from "./source-counts";
import { stuckFigures } from "./stuck-series";
import { verifiedUpstreams } from "./verified-upstream";
import { contiguousSlicesEnd, windowFigures } from "./window-figures";

/**
 * A tool "records events" when its writer appended any event in this long: a tool with claims
 * and no event of any kind in a week is taken to have a writer that does not record them, and
 * its replay / rejection / unknown figures read "not recorded" rather than a misleading 0.
 */
export const RECORDING_LOOKBACK_MS = 7 * 24 * HOUR_MS;

export type GetMetricsOptions = {
  /** Roll up what a read needs before reading (default true): settled minutes, closed hours no slices cover. */
  rollUp?: boolean;
  /** Where the roll-up writes when `db` is the read replica (it refuses writes): the primary. Default `db`. */
  rollUpOn?: Db;
};

/**
 * The duplicate-suppression figures of one window, limited to the actor's tenants: closed hours
 * from the hourly rollup, settled minutes of the open hours from minute slices, only the last
 * minute or two live from the base tables (window-figures.ts) — never a GROUP BY over the window
 * at request time.
 */
export async function getMetrics(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  query: MetricsQuery,
  now: Date,
  options: GetMetricsOptions = {},
): Promise<MetricsReport> {
  const rollup = options.rollUp === false ? null : await rollUpBeforeRead(options.rollUpOn ?? db, now);
  const bounds = windowBounds(query.window, now);
  const scope: SourceScope = {
    tenants: actorTenantScope(actor).tenants,
    tenant: query.tenant,
    tool: query.tool === UNRECORDED_TOOL ? "" : query.tool,
  };
  const steps = windowSteps(bounds);

  // The duplicate scan's figures count whole event hours: from the hour holding the window's start.
  const scanRange = {
    since: floorTo(bounds.from, HOUR_MS),
    until: bounds.to,
    tool: scope.tool ?? undefined,
    tenant: scope.tenant ?? undefined,
  };
  const tenantScope = actorTenantScope(actor);
  // Each step ends where the next begins; the last at the request's instant.
  const stepEnds = steps.map((_, i) => steps[i + 1] ?? bounds.to);
  const [{ counts, rolled, latency, source }, stuck, sideEffects, recording, known, [duplicates, repeats], upstreams] =
    await Promise.all([
      windowFigures(db, { from: bounds.from, to: bounds.to, stepMs: bounds.stepMs }, scope),
      // The last step ends at `now`: its stuck claims are the "stuck now" figures.
      stuckFigures(db, config, scope, stepEnds),
      reportedSideEffects(db, floorTo(bounds.from, HOUR_MS), bounds.to, scope),
      toolsRecordingEvents(db, scope.tenants, now),
      loadKnownTools(db, config),
      // One snapshot: the figures and the watermark `repeats.scannedThrough` says they count through.
      atOneScanSnapshot(
        db,
        async (scan) =>
          [
            await duplicateFigures(scan, tenantScope, scanRange),
            await repeatDelayFigures(scan, tenantScope, scanRange),
          ] as const,
      ),
      verifiedUpstreams(db, scope.tool || null),
    ]);
  const duplicatesOf = new Map(duplicates.byTool.map((d) => [d.tool, d]));

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
  // The rolled-up hours come summed two ways: per (hour, tool) for the series only, per (tenant, tool) for the rest.
  for (const row of rolled.byHour) {
    const point = byStep.get(row.step.getTime());
    if (point) addCounts(point, row, recording.has(row.tool));
  }
  for (const row of rolled.byTenant) {
    const records = recording.has(row.tool);
    for (const t of groupsOf(row.tenant, row.tool)) addCounts(t, row, records);
  }
  for (const row of latency) {
    for (const t of groupsOf(row.tenant, row.tool)) {
      for (const kind of LATENCY_KINDS)
        for (const [bucket, n] of row.histograms[kind]) addToHistogram(t.latency[kind], bucket, n);
    }
  }
  for (const row of stuck.now) for (const t of groupsOf(row.tenant, row.tool)) t.stuckNow += row.stuck;
  for (const row of sideEffects) {
    for (const t of groupsOf(row.tenant, row.tool)) {
      t.operations += row.operations;
      t.sideEffects += row.sideEffects;
      t.sideEffectsReported = true;
    }
  }
  // Every known tool is listed, with zeros when nothing of it is in the window (the configuration's
  // and the listings' tools; under a tool filter only that one): a claim with no keys must show.
  const seen = new Set(byTool.keys());
  for (const tool of known.keys()) if (scope.tool === null || scope.tool === tool) group(byTool, tool);
  // A group records events when any of its tools does — also when it had no claims in the window (a real 0).
  for (const [tool, t] of byTool) t.anyRecordingTool = recording.has(tool);
  const anyRecording = scope.tool !== null ? recording.has(scope.tool) : recording.size > 0;
  overall.anyRecordingTool ||= anyRecording;

  const tools = [...byTool].map(([tool, t]) => ({
    tool: tool === "" ? null : tool,
    seen: seen.has(tool),
    declaredIdempotentHint: known.get(tool)?.declaredIdempotentHint ?? null,
    listedBy: known.get(tool)?.listedBy ?? [],
    ...figures(t),
    duplicatesThrough: duplicatesOf.get(tool)?.duplicates ?? null,
    argumentsMismatches: duplicatesOf.get(tool)?.argumentsMismatches ?? null,
    verifiedUpstream: upstreams.get(tool) ?? null,
  }));
  tools.sort((a, b) => risk(b) - risk(a) || b.executions - a.executions || (a.tool ?? "").localeCompare(b.tool ?? ""));
  const tenants = [...byTenant]
    .map(([tenant, t]) => ({ tenant, ...figures(t) }))
    .sort((a, b) => risk(b) - risk(a) || b.executions - a.executions || a.tenant.localeCompare(b.tenant));
  const series: SeriesPoint[] = steps.map((s, i) => ({
    ...seriesPoint(s, byStep.get(s.getTime()) ?? emptyTotals(), anyRecording),
    stuckAtEnd: stuck.atStepEnds[i] ?? 0,
  }));

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
    repeats: { since: scanRange.since.toISOString(), ...repeats },
    source: {
      ...source,
      hoursRolledUpNow: rollup?.hours.rolledUp.length ?? 0,
      minutesRolledUpNow: rollup?.minutes.rolledUp ?? 0,
    },
  };
}

function group<K>(map: Map<K, Totals>, key: K): Totals {
  let t = map.get(key);
  if (!t) map.set(key, (t = emptyTotals()));
  return t;
}

function addCounts(t: Totals, row: SourceFigures, records: boolean): void {
  addFigures(t, row);
  if (records) {
    t.executionsOfRecordingTools += row.executions;
    t.anyRecordingTool = true;
  }
}

function figures(t: Totals): MetricsFigures {
  const recorded = t.anyRecordingTool;
  const calls = suppressionCalls(t);
  let timedCompletions = 0;
  for (const n of t.latency.writer.values()) timedCompletions += n;
  return {
    executions: t.executions,
    completed: t.completed,
    replaysServed: recorded ? t.replaysServed : null,
    inFlightRejected: recorded ? t.inFlightRejected : null,
    suppressionRate: suppressionRate(t),
    suppressionCalls: calls,
    smallSample: isSmallSample(calls),
    outcomeUnknown: recorded ? t.outcomeUnknown : null,
    stuckNow: t.stuckNow,
    resolvedByOperator: t.resolvedByOperator,
    resolvedByReconciler: t.resolvedByReconciler,
    completeP50Ms: histogramPercentileMs(t.latency.writer, 0.5),
    completeP95Ms: histogramPercentileMs(t.latency.writer, 0.95),
    timedCompletions,
    operatorResolveP50Ms: histogramPercentileMs(t.latency.operator, 0.5),
    operatorResolveP95Ms: histogramPercentileMs(t.latency.operator, 0.95),
    reconcilerResolveP50Ms: histogramPercentileMs(t.latency.reconciler, 0.5),
    reconcilerResolveP95Ms: histogramPercentileMs(t.latency.reconciler, 0.95),
    sideEffectsPerOperation: t.sideEffectsReported && t.operations > 0 ? t.sideEffects / t.operations : null,
    eventsRecorded: recorded,
  };
}

function seriesPoint(step: Date, t: Totals, anyRecording: boolean): Omit<SeriesPoint, "stuckAtEnd"> {
  // A step with no claims of a recording tool still has a real 0 of events when the selection records them.
  const recorded = anyRecording;
  const calls = recorded ? suppressionCalls({ ...t, anyRecordingTool: true }) : null;
  return {
    at: step.toISOString(),
    executions: t.executions,
    completed: t.completed,
    replaysServed: recorded ? t.replaysServed : null,
    inFlightRejected: recorded ? t.inFlightRejected : null,
    outcomeUnknown: recorded ? t.outcomeUnknown : null,
    suppressionRate: recorded ? suppressionRate({ ...t, anyRecordingTool: true }) : null,
    calls,
    smallSample: isSmallSample(calls),
  };
}

function risk(f: MetricsFigures): number {
  return f.stuckNow + (f.outcomeUnknown ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Reads

/** Processor reports by claim hour: the hours overlapping the window (the 1 h window reads its two or so hours whole). */
async function reportedSideEffects(
  db: Db,
  from: Date,
  to: Date,
  scope: SourceScope,
): Promise<{ tenant: string; tool: string; operations: number; sideEffects: number }[]> {
  const rows = await db.$queryRaw<{ tenant: string; tool: string; operations: bigint; side_effects: bigint }[]>`
    SELECT tenant, tool, sum(operations)::int8 AS operations, sum(side_effects)::int8 AS side_effects FROM processor_side_effect_count
    WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz ${rollupScope(scope)}
    GROUP BY 1, 2`;
  return rows.map((r) => ({
    tenant: r.tenant,
    tool: r.tool,
    operations: Number(r.operations),
    sideEffects: Number(r.side_effects),
  }));
}

/**
 * Tools ('' = unrecorded) with any writer event in the lookback, within the actor's tenants but
 * regardless of the tenant filter: whether a tool's writer records events is a property of the
 * writer, so a tenant with no replays shows a real 0. Rolled-up hours from the hourly rollup,
 * settled minutes of the open hours from the slices, the rest (a minute or two) from the events
 * table. The rollups count three of the contract's four kinds: arguments_mismatch events (rare)
 * are read from their partial index over the whole lookback.
 */
export async function toolsRecordingEvents(db: Db, tenants: string[] | null, now: Date): Promise<Set<string>> {
  const since = new Date(now.getTime() - RECORDING_LOOKBACK_MS);
  const sliceStart = firstSliceMinute(now);
  const [hourly] = await db.$queryRaw<{ covered: Date }[]>`
    SELECT LEAST(${new Date(lastClosedHour(now).getTime() + HOUR_MS)}::timestamptz,
                 COALESCE((SELECT max(hour) + interval '1 hour' FROM metrics_rollup_hour), ${since}::timestamptz)) AS covered`;
  const hoursCovered = hourly?.covered ?? since;
  // Slices continue the hourly rollup only when it reaches their start (no hole between them).
  const eventsFrom =
    hoursCovered >= sliceStart
      ? new Date(Math.max(hoursCovered.getTime(), (await contiguousSlicesEnd(db, sliceStart, now)).getTime()))
      : hoursCovered;
  const tenantSql = rollupScope({ tenants, tenant: null, tool: null });
  const rows = await db.$queryRaw<{ tool: string }[]>`
    SELECT DISTINCT tool FROM metrics_hourly
    WHERE hour >= ${since}::timestamptz AND (replays_served + in_flight_rejected + outcome_unknown) > 0 ${tenantSql}
    UNION
    SELECT DISTINCT tool FROM metrics_minute
    WHERE minute >= ${sliceStart}::timestamptz AND minute < ${eventsFrom}::timestamptz AND (replays_served + in_flight_rejected + outcome_unknown) > 0 ${tenantSql}
    UNION
    SELECT DISTINCT COALESCE(tool, '') FROM idempotency_event
    WHERE kind = 'arguments_mismatch' AND at >= ${since}::timestamptz AND at < ${eventsFrom}::timestamptz ${tenantSql}
    UNION
    SELECT DISTINCT COALESCE(tool, '') FROM idempotency_event WHERE at >= ${eventsFrom}::timestamptz ${tenantSql}`;
  return new Set(rows.map((r) => r.tool));
}
