import type { MetricsWindow } from "./metrics-params";
import type { SourceFigures } from "./source-counts";
import type { FiguresSource } from "./window-figures";

/**
 * The metrics DTOs (what GET /api/v1/metrics returns and the pages render) and the pure
 * arithmetic from summed counts to figures. Event-based figures are null — shown "not
 * recorded", never 0 — for tools whose writer records no events (DESIGN §3).
 */
export type MetricsFigures = {
  /** Claims: rows inserted (and claims later released, from the audit log). */
  executions: number;
  completed: number;
  replaysServed: number | null;
  inFlightRejected: number | null;
  /** (replays + rejections) / (executions + replays + rejections), over tools that record events. */
  suppressionRate: number | null;
  outcomeUnknown: number | null;
  /** in_progress past the tool's stuckAfter threshold at the request's instant (not windowed). */
  stuckNow: number;
  resolvedByOperator: number;
  resolvedByReconciler: number;
  /** Nearest-rank percentiles of updated_at − created_at, to a log bucket (±9.1%). Null: no timed completion. */
  completeP50Ms: number | null;
  completeP95Ms: number | null;
  /** Side effects the processor reports per operation (reference); null: no processor report. */
  sideEffectsPerOperation: number | null;
  /** Whether the writers of these tools record events (any, in the last RECORDING_LOOKBACK). */
  eventsRecorded: boolean;
};

export type ToolMetrics = { tool: string | null } & MetricsFigures;
export type TenantMetrics = { tenant: string } & MetricsFigures;

export type SeriesPoint = {
  at: string;
  executions: number;
  completed: number;
  replaysServed: number | null;
  inFlightRejected: number | null;
  outcomeUnknown: number | null;
  suppressionRate: number | null;
};

export type MetricsReport = {
  window: MetricsWindow;
  from: string;
  to: string;
  /** Length of one series step: 300000 (5 min) for 1h, 3600000 otherwise. */
  stepMs: number;
  filter: { tool: string | null; tenant: string | null };
  overall: MetricsFigures;
  /** Sorted by risk: stuck now + outcome unknown first, then executions. */
  tools: ToolMetrics[];
  tenants: TenantMetrics[];
  series: SeriesPoint[];
  /** Where the figures came from (window-figures.ts). */
  source: FiguresSource & {
    /** Hours this request rolled up before reading. */
    hoursRolledUpNow: number;
    /** Minutes this request rolled into slices before reading. */
    minutesRolledUpNow: number;
  };
};

/** Summed counts of one group (a tool, a tenant, a step, everything). */
export type Totals = SourceFigures & {
  /** Executions of tools whose writers record events: the suppression rate's base. */
  executionsOfRecordingTools: number;
  stuckNow: number;
  operations: number;
  sideEffects: number;
  sideEffectsReported: boolean;
  anyRecordingTool: boolean;
  latency: Map<number, number>;
};

export function emptyTotals(): Totals {
  return {
    executions: 0, executionsOfRecordingTools: 0, completed: 0, replaysServed: 0, inFlightRejected: 0, outcomeUnknown: 0,
    resolvedByOperator: 0, resolvedByReconciler: 0, stuckNow: 0, operations: 0, sideEffects: 0, sideEffectsReported: false,
    anyRecordingTool: false, latency: new Map(),
  };
}

export function suppressionRate(t: Pick<Totals, "executionsOfRecordingTools" | "replaysServed" | "inFlightRejected" | "anyRecordingTool">): number | null {
  if (!t.anyRecordingTool) return null;
  const suppressed = t.replaysServed + t.inFlightRejected;
  const attempts = t.executionsOfRecordingTools + suppressed;
  return attempts === 0 ? null : suppressed / attempts;
}
