import "server-only";
import type { Db } from "@/lib/db/prisma";
import { addStoredHistogram, addToHistogram } from "./latency-histogram";
import { HOUR_MS, MINUTE_MS, floorTo } from "./metrics-window";
import { forgetRolledHourSums, rolledHourSums, type RolledHourSums } from "./rolled-hour-sums";
import { RolledRowsCache, type Listed } from "./rolled-rows-cache";
import type { StoredHistograms } from "./rollup-tables";
import {
  LATENCY_KINDS,
  addFigures,
  figuresOfRaw,
  rollupScope,
  sourceCounts,
  sourceLatency,
  type CountRow,
  type LatencyTotal,
  type RawFigures,
  type SourceScope,
} from "./source-counts";

export type FiguresRange = {
  /**
   * Start of the range (inclusive). Steps are aligned to stepMs: when `from` is not, the first
   * step is the partial one from `from` to its end (a range that starts mid-hour).
   */
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
  /** The partial first step, counted from the base tables: [from, its step's end) (ISO); null when `from` is aligned. */
  countedLiveHead: { from: string; to: string } | null;
};

export type WindowFigures = {
  /** Per (step, tenant, tool): the steps no rolled-up hour covers, from minute slices and the base tables. */
  counts: CountRow[];
  /** The rolled-up hours, summed in SQL: per (hour, tool) and per (tenant, tool); add one or the other, never both. */
  rolled: Pick<RolledHourSums, "byHour" | "byTenant">;
  /** Per (tenant, tool), every source merged. */
  latency: LatencyTotal[];
  source: FiguresSource;
};

export type FiguresOptions = {
  /** Also compute the time-to-complete histograms (default true; the tools audit does not need them). */
  latency?: boolean;
};

/**
 * The figures of a range of steps from the cheapest source that is exact for each part:
 * 1. whole hours from the hourly rollup (hour steps only);
 * 2. from the first step it does not cover, the minutes rolled into slices — a contiguous run,
 *    summed into the step they fall in;
 * 3. the rest — normally the last minute or so — counted from the base tables.
 * A step the hourly rollup covers is never also taken from slices or the base tables (a hole in the
 * hourly rollup leaves later rolled hours in the range of 2 and 3: their rows are dropped).
 * A `from` inside a step makes that first step partial: it is counted from the base tables over
 * [from, its end), so nothing before `from` counts — up to an hour of rows, which is why the tools
 * audit aligns its start to the hour (annotations/audit-window.ts).
 */
export async function windowFigures(
  db: Db,
  range: FiguresRange,
  scope: SourceScope,
  options: FiguresOptions = {},
): Promise<WindowFigures> {
  const { stepMs } = range;
  const headEnd = new Date(Math.min(range.to.getTime(), floorTo(range.from, stepMs).getTime() + stepMs));
  if (range.from.getTime() % stepMs === 0 || headEnd <= range.from) return alignedFigures(db, range, scope, options);
  // A partial first step: its rolled-up hour or slices would count the rows before `from` too,
  // so it is counted from the base tables — at most one step's rows; the rest as usual.
  const withLatency = options.latency ?? true;
  const head = { from: range.from, to: headEnd, stepMs };
  const [headCounts, headLatency, rest] = await Promise.all([
    sourceCounts(db, head, scope),
    withLatency ? sourceLatency(db, head, scope) : [],
    headEnd < range.to ? alignedFigures(db, { from: headEnd, to: range.to, stepMs }, scope, options) : null,
  ]);
  const latency = new Map((rest?.latency ?? []).map((l) => [`${l.tenant}\u0000${l.tool}`, l]));
  for (const r of headLatency) {
    const key = `${r.tenant}\u0000${r.tool}`;
    let total = latency.get(key);
    if (!total)
      latency.set(
        key,
        (total = {
          tenant: r.tenant,
          tool: r.tool,
          histograms: { writer: new Map(), operator: new Map(), reconciler: new Map() },
        }),
      );
    addToHistogram(total.histograms[r.kind], r.bucket, r.completions);
  }
  const source = rest?.source ?? {
    rolledUpSteps: 0,
    liveSteps: 0,
    sliceMinutes: 0,
    countedLiveFrom: null,
    countedLiveHead: null,
  };
  return {
    counts: [...headCounts, ...(rest?.counts ?? [])],
    rolled: rest?.rolled ?? { byHour: [], byTenant: [] },
    latency: [...latency.values()],
    source: {
      ...source,
      liveSteps: source.liveSteps + 1,
      countedLiveHead: { from: head.from.toISOString(), to: head.to.toISOString() },
    },
  };
}

/** windowFigures of a range whose `from` is aligned to its step. */
async function alignedFigures(
  db: Db,
  range: FiguresRange,
  scope: SourceScope,
  options: FiguresOptions,
): Promise<WindowFigures> {
  const withLatency = options.latency ?? true;
  const { from, to, stepMs } = range;
  // As windowSteps: the step starting at `to` counts (empty) when `to` falls on a boundary.
  const stepCount = Math.max(0, Math.floor((to.getTime() - from.getTime()) / stepMs) + 1);
  const steps = Array.from({ length: stepCount }, (_, i) => from.getTime() + i * stepMs);
  const listedHours = stepMs === HOUR_MS ? await rolledUpHours(db, from, to) : [];
  const rolledHours = new Set(listedHours.map((l) => l.at.getTime()));
  const firstOpenStep = steps.find((s) => !rolledHours.has(s));
  const openStart = firstOpenStep === undefined ? null : new Date(firstOpenStep);
  const sliceRun = openStart ? await contiguousSlices(db, openStart, to) : null;
  const sliceEnd = sliceRun?.end ?? null;
  const notRolled = (r: { step: Date }) => !rolledHours.has(r.step.getTime());

  const [hourly, slices, liveCounts, liveLatency] = await Promise.all([
    rolledHourSums(db, listedHours, scope, { latency: withLatency }),
    sliceRun && sliceRun.listed.length > 0 ? rolledSlices(db, sliceRun.listed, scope) : [],
    sliceEnd && sliceEnd < to ? sourceCounts(db, { from: sliceEnd, to, stepMs }, scope) : [],
    withLatency && sliceEnd && sliceEnd < to ? sourceLatency(db, { from: sliceEnd, to, stepMs }, scope) : [],
  ]);
  const sliceSteps = sumIntoSteps(slices.map((r) => ({ ...r, step: floorTo(r.step, stepMs) }))).filter(notRolled);

  const latency = new Map<string, LatencyTotal>();
  const histogramsOf = (tenant: string, tool: string) => {
    const key = `${tenant}\u0000${tool}`;
    let total = latency.get(key);
    if (!total)
      latency.set(
        key,
        (total = { tenant, tool, histograms: { writer: new Map(), operator: new Map(), reconciler: new Map() } }),
      );
    return total.histograms;
  };
  if (withLatency) {
    for (const total of hourly.latency) {
      const histograms = histogramsOf(total.tenant, total.tool);
      for (const kind of LATENCY_KINDS)
        for (const [bucket, n] of total.histograms[kind]) addToHistogram(histograms[kind], bucket, n);
    }
    for (const r of sliceSteps) {
      const histograms = histogramsOf(r.tenant, r.tool);
      for (const kind of LATENCY_KINDS) addStoredHistogram(histograms[kind], r.latency[kind]);
    }
    for (const r of liveLatency.filter(notRolled))
      addToHistogram(histogramsOf(r.tenant, r.tool)[r.kind], r.bucket, r.completions);
  }
  return {
    counts: [...sliceSteps, ...liveCounts.filter(notRolled)].map(withoutLatency),
    rolled: { byHour: hourly.byHour, byTenant: hourly.byTenant },
    latency: [...latency.values()],
    source: {
      rolledUpSteps: steps.filter((s) => rolledHours.has(s)).length,
      liveSteps: steps.filter((s) => !rolledHours.has(s)).length,
      sliceMinutes: openStart && sliceEnd ? Math.round((sliceEnd.getTime() - openStart.getTime()) / MINUTE_MS) : 0,
      countedLiveFrom: sliceEnd && sliceEnd < to ? sliceEnd.toISOString() : null,
      countedLiveHead: null,
    },
  };
}

/** The rolled-up hours of [from, to), each with the version (xmin) of its listing row. */
async function rolledUpHours(db: Db, from: Date, to: Date): Promise<Listed[]> {
  return db.$queryRaw<Listed[]>`
    SELECT hour AS at, xmin::text AS version FROM metrics_rollup_hour WHERE hour >= ${from}::timestamptz AND hour < ${to}::timestamptz`;
}

/**
 * The run of rolled-up minutes that starts at `start`, each with the version of its listing row,
 * and where it ends (`start` itself when `start` is not rolled up).
 */
async function contiguousSlices(db: Db, start: Date, to: Date): Promise<{ end: Date; listed: Listed[] }> {
  const rows = await db.$queryRaw<Listed[]>`
    SELECT minute AS at, xmin::text AS version FROM metrics_rollup_minute WHERE minute >= ${start}::timestamptz AND minute < ${to}::timestamptz ORDER BY minute`;
  const listed: Listed[] = [];
  let end = start.getTime();
  for (const row of rows) {
    if (row.at.getTime() !== end) break;
    listed.push(row);
    end += MINUTE_MS;
  }
  return { end: new Date(end), listed };
}

/** The end of the run of rolled-up minutes that starts at `start` (`start` itself when it is not rolled up). */
export async function contiguousSlicesEnd(db: Db, start: Date, to: Date): Promise<Date> {
  return (await contiguousSlices(db, start, to)).end;
}

type RolledRow = CountRow & { latency: StoredHistograms };

type RawRolledRow = RawFigures & {
  step: Date;
  tenant: string;
  tool: string;
  latency: StoredHistograms["writer"];
  operator_latency: StoredHistograms["operator"];
  reconciler_latency: StoredHistograms["reconciler"];
};

function rolledRow(r: RawRolledRow): RolledRow {
  return {
    step: r.step,
    tenant: r.tenant,
    tool: r.tool,
    ...figuresOfRaw(r),
    latency: { writer: r.latency, operator: r.operator_latency, reconciler: r.reconciler_latency },
  };
}

function withoutLatency({ latency: _latency, ...counts }: CountRow & { latency?: StoredHistograms }): CountRow {
  return counts;
}

// Minute slices' rows by scope, minute and listing version (rolled-rows-cache.ts): one per process.
// A slice is a minute of one window's live part; the hours are summed in SQL (rolled-hour-sums.ts).
const minuteRows = new RolledRowsCache<RolledRow>();

/** Forgets every kept rolled-up row and sum (tests that rewrite rollup tables behind the listing's back). */
export function forgetRolledRows(): void {
  minuteRows.clear();
  forgetRolledHourSums();
}

const scopeKey = (scope: SourceScope) =>
  JSON.stringify([scope.tenants ? [...scope.tenants].sort() : null, scope.tenant, scope.tool]);

type VersionedRawRow = RawRolledRow & { version: string };

const versioned = (rows: VersionedRawRow[]) => rows.map((r) => ({ at: r.step, version: r.version, row: rolledRow(r) }));

/**
 * The listed minutes' rows, one per (minute, tenant, tool): from memory, or one primary-key probe
 * per minute not held yet.
 */
async function rolledSlices(db: Db, listed: Listed[], scope: SourceScope): Promise<RolledRow[]> {
  return minuteRows.rowsOf(scopeKey(scope), listed, async (missing) =>
    versioned(
      await db.$queryRaw<VersionedRawRow[]>`
        SELECT m.minute AS step, r.xmin::text AS version, tenant, tool, executions, completed, replays_served, in_flight_rejected, outcome_unknown, resolved_by_operator, resolved_by_reconciler, latency, operator_latency, reconciler_latency
        FROM metrics_minute m JOIN metrics_rollup_minute r ON r.minute = m.minute
        WHERE m.minute = ANY(${missing}::timestamptz[]) ${rollupScope(scope)}`,
    ),
  );
}

/** Rows already placed in their step, summed per (step, tenant, tool), histograms merged. */
function sumIntoSteps(rows: RolledRow[]): RolledRow[] {
  const sums = new Map<string, RolledRow>();
  for (const r of rows) {
    const key = `${r.step.getTime()}\u0000${r.tenant}\u0000${r.tool}`;
    const sum = sums.get(key);
    if (!sum) {
      sums.set(key, {
        ...r,
        latency: {
          writer: { ...r.latency.writer },
          operator: { ...r.latency.operator },
          reconciler: { ...r.latency.reconciler },
        },
      });
      continue;
    }
    addFigures(sum, r);
    for (const kind of LATENCY_KINDS) {
      const into = sum.latency[kind];
      for (const [bucket, n] of Object.entries(r.latency[kind])) into[bucket] = (into[bucket] ?? 0) + n;
    }
  }
  return [...sums.values()];
}
