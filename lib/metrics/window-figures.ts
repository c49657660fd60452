import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { HOUR_MS, MINUTE_MS } from "./metrics-window";
import { sourceCounts, sourceLatency, type CountRow, type LatencyRow, type SourceScope } from "./source-counts";

export type FiguresRange = {
  /** Start of the first step; aligned to stepMs. */
  from: Date;
  /** Exclusive end: the request's instant. */
  to: Date;
  /** A whole number of minutes that divides an hour (5 minutes or an hour). */
  stepMs: number;
};

export type FiguresSource = {
  /** Steps read from the hourly rollup. */
  rolledUpSteps: number;
  /** Steps read from minute slices and the base tables. */
  liveSteps: number;
  /** Minutes read from minute slices. */
  sliceMinutes: number;
  /** Where counting from the base tables started (ISO); null when nothing was. */
  countedLiveFrom: string | null;
};

/** A latency histogram bucket summed over the whole range (no step: the report's percentiles are per tool and tenant). */
export type LatencyTotal = Omit<LatencyRow, "step">;

export type WindowFigures = { counts: CountRow[]; latency: LatencyTotal[]; source: FiguresSource };

export type FiguresOptions = {
  /** Also read the time-to-complete histogram (default true; the tools audit does not need it). */
  latency?: boolean;
};

/**
 * The figures of a range of steps from the cheapest source that is exact for each part:
 * 1. whole hours from the hourly rollup (hour steps only);
 * 2. from the first step it does not cover, the minutes rolled into slices — a contiguous run,
 *    summed into the step they fall in;
 * 3. the rest — normally the last minute or two — counted from the base tables.
 * A step the hourly rollup covers is never also taken from slices or the base tables (a hole in the
 * hourly rollup leaves later rolled hours in the range of 2 and 3: their rows are dropped).
 */
export async function windowFigures(db: Db, range: FiguresRange, scope: SourceScope, options: FiguresOptions = {}): Promise<WindowFigures> {
  const withLatency = options.latency ?? true;
  const { from, to, stepMs } = range;
  // As windowSteps: the step starting at `to` counts (empty) when `to` falls on a boundary.
  const stepCount = Math.max(0, Math.floor((to.getTime() - from.getTime()) / stepMs) + 1);
  const steps = Array.from({ length: stepCount }, (_, i) => from.getTime() + i * stepMs);
  const rolledHours = stepMs === HOUR_MS ? await rolledUpHours(db, from, to) : new Set<number>();
  const firstOpenStep = steps.find((s) => !rolledHours.has(s));
  const openStart = firstOpenStep === undefined ? null : new Date(firstOpenStep);
  const sliceEnd = openStart ? await contiguousSlicesEnd(db, openStart, to) : null;
  const notRolled = (r: { step: Date }) => !rolledHours.has(r.step.getTime());

  const [hourlyCounts, hourlyLatency, sliceCounts, sliceLatency, liveCounts, liveLatency] = await Promise.all([
    rolledHours.size > 0 ? rolledUpCounts(db, from, to, scope) : [],
    withLatency && rolledHours.size > 0 ? rolledUpLatency(db, from, to, scope) : [],
    openStart && sliceEnd && sliceEnd > openStart ? sliceCountsOf(db, openStart, sliceEnd, stepMs, scope) : [],
    withLatency && openStart && sliceEnd && sliceEnd > openStart ? sliceLatencyOf(db, openStart, sliceEnd, stepMs, scope) : [],
    sliceEnd && sliceEnd < to ? sourceCounts(db, { from: sliceEnd, to, stepMs }, scope) : [],
    withLatency && sliceEnd && sliceEnd < to ? sourceLatency(db, { from: sliceEnd, to, stepMs }, scope) : [],
  ]);
  const withoutStep = ({ step: _step, ...total }: LatencyRow): LatencyTotal => total;
  return {
    counts: [...hourlyCounts, ...sliceCounts.filter(notRolled), ...liveCounts.filter(notRolled)],
    latency: [...hourlyLatency, ...sliceLatency.filter(notRolled).map(withoutStep), ...liveLatency.filter(notRolled).map(withoutStep)],
    source: {
      rolledUpSteps: steps.filter((s) => rolledHours.has(s)).length,
      liveSteps: steps.filter((s) => !rolledHours.has(s)).length,
      sliceMinutes: openStart && sliceEnd ? Math.round((sliceEnd.getTime() - openStart.getTime()) / MINUTE_MS) : 0,
      countedLiveFrom: sliceEnd && sliceEnd < to ? sliceEnd.toISOString() : null,
    },
  };
}

/** Scope on the rollup tables, where an unrecorded tool is stored as ''. */
export function rollupScope(scope: SourceScope): Prisma.Sql {
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

/** The end of the run of rolled-up minutes that starts at `start` (`start` itself when it is not rolled up). */
export async function contiguousSlicesEnd(db: Db, start: Date, to: Date): Promise<Date> {
  const rows = await db.$queryRaw<{ minute: Date }[]>`
    SELECT minute FROM metrics_rollup_minute WHERE minute >= ${start}::timestamptz AND minute < ${to}::timestamptz ORDER BY minute`;
  let end = start.getTime();
  for (const { minute } of rows) {
    if (minute.getTime() !== end) break;
    end += MINUTE_MS;
  }
  return new Date(end);
}

type RawCounts = {
  step: Date; tenant: string; tool: string; executions: bigint; completed: bigint; replays_served: bigint; in_flight_rejected: bigint;
  outcome_unknown: bigint; resolved_by_operator: bigint; resolved_by_reconciler: bigint;
};

function countRow(r: RawCounts): CountRow {
  return {
    step: r.step, tenant: r.tenant, tool: r.tool,
    executions: Number(r.executions), completed: Number(r.completed), replaysServed: Number(r.replays_served),
    inFlightRejected: Number(r.in_flight_rejected), outcomeUnknown: Number(r.outcome_unknown),
    resolvedByOperator: Number(r.resolved_by_operator), resolvedByReconciler: Number(r.resolved_by_reconciler),
  };
}

function latencyRow(r: { step: Date; tenant: string; tool: string; bucket: number; completions: bigint }): LatencyRow {
  return { step: r.step, tenant: r.tenant, tool: r.tool, bucket: Number(r.bucket), completions: Number(r.completions) };
}

/** A primary-key range on (hour, …), limited to hours listed as rolled up. */
async function rolledUpCounts(db: Db, from: Date, to: Date, scope: SourceScope): Promise<CountRow[]> {
  const rows = await db.$queryRaw<RawCounts[]>`
    SELECT hour AS step, tenant, tool, executions, completed, replays_served, in_flight_rejected, outcome_unknown, resolved_by_operator, resolved_by_reconciler
    FROM metrics_hourly
    WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz
      AND hour IN (SELECT hour FROM metrics_rollup_hour WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz)
      ${rollupScope(scope)}`;
  return rows.map(countRow);
}

/** Summed over the hours in SQL: 48 h are ~15,000 rows (hour × tenant × tool × bucket), ~1,000 once summed. */
async function rolledUpLatency(db: Db, from: Date, to: Date, scope: SourceScope): Promise<LatencyTotal[]> {
  const rows = await db.$queryRaw<{ tenant: string; tool: string; bucket: number; completions: bigint }[]>`
    SELECT tenant, tool, bucket, sum(completions)::int8 AS completions FROM metrics_hourly_latency
    WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz ${rollupScope(scope)}
    GROUP BY 1, 2, 3`;
  return rows.map((r) => ({ tenant: r.tenant, tool: r.tool, bucket: Number(r.bucket), completions: Number(r.completions) }));
}

// date_bin's origin: any UTC hour boundary gives UTC-aligned steps (as in source-counts.ts).
const ORIGIN = "2000-01-01T00:00:00Z";

function sliceStep(stepMs: number): Prisma.Sql {
  return Prisma.sql`date_bin(${`${stepMs / 1000} seconds`}::interval, minute, ${ORIGIN}::timestamptz)`;
}

/** Slices of [from, to), summed per step: a primary-key range on (minute, …) of at most ~125 minutes. */
async function sliceCountsOf(db: Db, from: Date, to: Date, stepMs: number, scope: SourceScope): Promise<CountRow[]> {
  const rows = await db.$queryRaw<RawCounts[]>`
    SELECT ${sliceStep(stepMs)} AS step, tenant, tool,
           sum(executions)::int8 AS executions, sum(completed)::int8 AS completed, sum(replays_served)::int8 AS replays_served,
           sum(in_flight_rejected)::int8 AS in_flight_rejected, sum(outcome_unknown)::int8 AS outcome_unknown,
           sum(resolved_by_operator)::int8 AS resolved_by_operator, sum(resolved_by_reconciler)::int8 AS resolved_by_reconciler
    FROM metrics_minute
    WHERE minute >= ${from}::timestamptz AND minute < ${to}::timestamptz ${rollupScope(scope)}
    GROUP BY 1, 2, 3`;
  return rows.map(countRow);
}

async function sliceLatencyOf(db: Db, from: Date, to: Date, stepMs: number, scope: SourceScope): Promise<LatencyRow[]> {
  const rows = await db.$queryRaw<{ step: Date; tenant: string; tool: string; bucket: number; completions: bigint }[]>`
    SELECT ${sliceStep(stepMs)} AS step, tenant, tool, bucket, sum(completions)::int8 AS completions
    FROM metrics_minute_latency
    WHERE minute >= ${from}::timestamptz AND minute < ${to}::timestamptz ${rollupScope(scope)}
    GROUP BY 1, 2, 3, 4`;
  return rows.map(latencyRow);
}
