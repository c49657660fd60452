import type { RepeatFigures } from "@/lib/repeats/repeat-figures";
import type { LatencyHistogram } from "./latency-histogram";
import type { MetricsWindow } from "./metrics-params";
import type { LatencyKind, SourceFigures } from "./source-counts";
import type { VerifiedUpstream } from "./verified-upstream";
import type { FiguresSource } from "./window-figures";

/**
 * The metrics DTOs (what GET /api/v1/metrics returns and the pages render) and the pure
 * arithmetic from summed counts to figures. Event-based figures are null — shown "not
 * recorded", never 0 — for tools whose writer records no events.
 */
export type MetricsFigures = {
  /** Claims: rows inserted (and claims later released, from the audit log). */
  executions: number;
  completed: number;
  replaysServed: number | null;
  inFlightRejected: number | null;
  /** (replays + rejections) / (executions + replays + rejections), over tools that record events. */
  suppressionRate: number | null;
  /** The rate's sample: executions + replays + rejections of tools that record events; null when none does. */
  suppressionCalls: number | null;
  /** Fewer than MIN_RATE_CALLS calls behind the rate: it is shown with its count and drawn as uncertain. */
  smallSample: boolean;
  outcomeUnknown: number | null;
  /** in_progress past the tool's stuckAfter threshold at the request's instant (not windowed). */
  stuckNow: number;
  /** Claims the console resolved (completed or released) by a person: a single resolve or a bulk apply (audit rows, by `at`). */
  resolvedByOperator: number;
  /** Claims the reconciler resolved (actor system:reconciler, or a run started by a person: reason "reconciler: …"). */
  resolvedByReconciler: number;
  /**
   * Writers' time to complete: nearest-rank percentiles of updated_at − created_at over completions a
   * writer made (the console's own completions are left out), to a log bucket (±9.1%). Null: none timed.
   */
  completeP50Ms: number | null;
  completeP95Ms: number | null;
  /** Writer completions with a known duration: the sample of completeP50Ms / completeP95Ms. */
  timedCompletions: number;
  /** Delay from claim to an operator's resolution (audit at − created_at), same buckets. Null: none. */
  operatorResolveP50Ms: number | null;
  operatorResolveP95Ms: number | null;
  /** Delay from claim to the reconciler's resolution, same buckets. Null: none. */
  reconcilerResolveP50Ms: number | null;
  reconcilerResolveP95Ms: number | null;
  /** Side effects the processor reports per operation (reference); null: no processor report. */
  sideEffectsPerOperation: number | null;
  /** Whether the writers of these tools record events (any, in the last RECORDING_LOOKBACK). */
  eventsRecorded: boolean;
};

export type ToolMetrics = {
  tool: string | null;
  /** Anything of this tool in the window and selection: a claim, completion, event, resolution or stuck row. */
  seen: boolean;
  /** idempotentHint as the newest listing of a server naming the tool declared it; null: not declared, or not listed. */
  declaredIdempotentHint: boolean | null;
  /** Servers whose newest good tools/list names the tool (empty: the configuration or the table alone knows it). */
  listedBy: string[];
  /** From the duplicate scan (whole hours from repeats.since): null = the writer records no arguments hash. */
  duplicatesThrough: number | null;
  argumentsMismatches: number | null;
  /**
   * The upstream's own count in the tool's newest stored verify run (verified-upstream.ts), whatever
   * the window: the only upstream count the console holds for a tool that records no events or no keys.
   */
  verifiedUpstream: VerifiedUpstream | null;
} & MetricsFigures;
export type TenantMetrics = { tenant: string } & MetricsFigures;

export type SeriesPoint = {
  at: string;
  executions: number;
  completed: number;
  replaysServed: number | null;
  inFlightRejected: number | null;
  outcomeUnknown: number | null;
  suppressionRate: number | null;
  /** The rate's sample size (executions + replays + rejections); null when the selection records no events. */
  calls: number | null;
  /** Fewer than MIN_RATE_CALLS calls: a rate too noisy to draw as a plain point. */
  smallSample: boolean;
  /**
   * Claims stuck at the step's end (the request's instant for the last step): a lower bound — claims
   * still in_progress now or resolved by the console since; one its writer completed late is not
   * counted (stuck-series.ts).
   */
  stuckAtEnd: number;
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
  /** Where repeats come from, from the duplicate scan: whole event hours from `since` to its scannedThrough. */
  repeats: RepeatFigures & { since: string };
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
  /** Writers' time to complete, and the console's resolution delays (window-figures.ts). */
  latency: Record<LatencyKind, LatencyHistogram>;
};

export function emptyTotals(): Totals {
  return {
    executions: 0,
    executionsOfRecordingTools: 0,
    completed: 0,
    replaysServed: 0,
    inFlightRejected: 0,
    outcomeUnknown: 0,
    resolvedByOperator: 0,
    resolvedByReconciler: 0,
    stuckNow: 0,
    operations: 0,
    sideEffects: 0,
    sideEffectsReported: false,
    anyRecordingTool: false,
    latency: { writer: new Map(), operator: new Map(), reconciler: new Map() },
  };
}

/** Below this many calls a rate is flagged small: 1 of 3 is not 33 % in any sense worth acting on. */
export const MIN_RATE_CALLS = 20;

type RateInput = Pick<Totals, "executionsOfRecordingTools" | "replaysServed" | "inFlightRejected" | "anyRecordingTool">;

/** The suppression rate's sample: every call of tools that record events (null when none does). */
export function suppressionCalls(t: RateInput): number | null {
  if (!t.anyRecordingTool) return null;
  return t.executionsOfRecordingTools + t.replaysServed + t.inFlightRejected;
}

export function suppressionRate(t: RateInput): number | null {
  const calls = suppressionCalls(t);
  return calls === null || calls === 0 ? null : (t.replaysServed + t.inFlightRejected) / calls;
}

/** A rate exists but rests on fewer than MIN_RATE_CALLS calls. */
export function isSmallSample(calls: number | null): boolean {
  return calls !== null && calls > 0 && calls < MIN_RATE_CALLS;
}
