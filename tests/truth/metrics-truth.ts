import type { TruthDb } from "./truth-sql";

/**
 * The metrics' figures for one window, counted from the base tables (idempotency,
 * idempotency_event, audit_log), by the definitions the API documents:
 * - executions: claims made in the window (created_at), including claims an operator released since
 *   (the release's audit snapshot keeps created_at);
 * - completed: completions in the window (updated_at; a writer that sets no updated_at: at the claim);
 * - replays / in-flight rejections / outcome unknown: the writers' events (at);
 * - resolved by operator / by reconciler: the console's resolution audit rows (at), the reconciler's
 *   being those of system:reconciler or with the reason "reconciler: …";
 * - stuck now: in_progress past the tool's stuckAfter at the window's end;
 * - time to complete: nearest-rank percentiles of updated_at − created_at over completions written by
 *   writers — a key the console completed (audit record.complete) is not a writer's latency.
 */
export type Scope = { tenants: string[] | null; tenant: string | null; tool: string | null };

export type GroupTruth = {
  executions: number;
  executionsOfRecordingTools: number;
  completed: number;
  replaysServed: number;
  inFlightRejected: number;
  outcomeUnknown: number;
  resolvedByOperator: number;
  resolvedByReconciler: number;
  stuckNow: number;
  /** Any claim or event of a tool whose writer records events. */
  recording: boolean;
  completeP50Ms: number | null;
  completeP95Ms: number | null;
  operatorResolveP50Ms: number | null;
  operatorResolveP95Ms: number | null;
  reconcilerResolveP50Ms: number | null;
  reconcilerResolveP95Ms: number | null;
};

export type MetricsTruth = {
  overall: GroupTruth;
  tools: Map<string, GroupTruth>;
  tenants: Map<string, GroupTruth>;
  steps: GroupTruth[];
  recordingTools: Set<string>;
};

export function suppressionTruth(g: GroupTruth): number | null {
  if (!g.recording) return null;
  const suppressed = g.replaysServed + g.inFlightRejected;
  const attempts = g.executionsOfRecordingTools + suppressed;
  return attempts === 0 ? null : suppressed / attempts;
}

export function callsTruth(g: GroupTruth): number {
  return g.executionsOfRecordingTools + g.replaysServed + g.inFlightRejected;
}

function empty(): GroupTruth {
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
    recording: false,
    completeP50Ms: null,
    completeP95Ms: null,
    operatorResolveP50Ms: null,
    operatorResolveP95Ms: null,
    reconcilerResolveP50Ms: null,
    reconcilerResolveP95Ms: null,
  };
}

const RECORDING_LOOKBACK = "7 days";
const RESOLVE_ACTIONS = "('record.complete', 'record.release', 'record.force_release')";
const BY_RECONCILER = "(actor = 'system:reconciler' OR COALESCE(reason, '') LIKE 'reconciler: %')";

export async function metricsTruth(
  db: TruthDb,
  window: { from: Date; to: Date; stepMs: number },
  scope: Scope,
): Promise<MetricsTruth> {
  const params: unknown[] = [window.from.toISOString(), window.to.toISOString(), window.stepMs];
  const p = (v: unknown) => `$${params.push(v)}`;
  const scopeOn = (tenant: string, tool: string) => {
    const parts: string[] = [];
    if (scope.tenants) parts.push(`${tenant} = ANY(${p(scope.tenants)}::text[])`);
    if (scope.tenant) parts.push(`${tenant} = ${p(scope.tenant)}`);
    if (scope.tool) parts.push(`${tool} = ${p(scope.tool)}`);
    return parts.map((s) => ` AND ${s}`).join("");
  };
  const step = (column: string) => `floor(extract(epoch FROM (${column} - $1::timestamptz)) * 1000 / $3)::int`;
  const inWindow = (column: string) => `${column} >= $1::timestamptz AND ${column} < $2::timestamptz`;
  const rowScope = () => scopeOn("tenant", "COALESCE(tool, '')");
  const auditScope = () => scopeOn("COALESCE(tenant, before->>'tenant')", "COALESCE(before->>'tool', '')");
  const released = "(before->>'createdAt')::timestamptz";

  const counted = await db.query<{ tenant: string; tool: string; step: number; measure: string; n: string }>(
    `
    SELECT tenant, COALESCE(tool, '') AS tool, ${step("created_at")} AS step, 'executions' AS measure, count(*) AS n
      FROM idempotency WHERE ${inWindow("created_at")} ${rowScope()} GROUP BY 1, 2, 3
    UNION ALL
    SELECT COALESCE(tenant, before->>'tenant'), COALESCE(before->>'tool', ''), ${step(released)}, 'executions', count(*)
      FROM audit_log WHERE action IN ('record.release', 'record.force_release') AND ${inWindow(released)} ${auditScope()} GROUP BY 1, 2, 3
    UNION ALL
    SELECT tenant, COALESCE(tool, ''), ${step("COALESCE(updated_at, created_at)")}, 'completed', count(*)
      FROM idempotency WHERE status = 'completed' AND ${inWindow("COALESCE(updated_at, created_at)")} ${rowScope()} GROUP BY 1, 2, 3
    UNION ALL
    SELECT tenant, COALESCE(tool, ''), ${step("at")}, kind, count(*)
      FROM idempotency_event WHERE ${inWindow("at")} ${rowScope()} GROUP BY 1, 2, 3, 4
    UNION ALL
    SELECT COALESCE(tenant, before->>'tenant'), COALESCE(before->>'tool', ''), ${step("at")},
           CASE WHEN ${BY_RECONCILER} THEN 'by_reconciler' ELSE 'by_operator' END, count(*)
      FROM audit_log WHERE action IN ${RESOLVE_ACTIONS} AND ${inWindow("at")} ${auditScope()} GROUP BY 1, 2, 3, 4
    UNION ALL
    SELECT tenant, COALESCE(tool, ''), 0, 'stuck', count(*)
      FROM idempotency WHERE ${db.stuckSql("$2", p(JSON.stringify(db.thresholds.byTool)))} ${rowScope()} GROUP BY 1, 2, 3`,
    params,
  );

  // Whether a writer records events is a property of the tool: any event in the last week, in the caller's tenants.
  const recordingParams: unknown[] = [window.to.toISOString()];
  const recordingRows = await db.query<{ tool: string }>(
    `SELECT DISTINCT COALESCE(tool, '') AS tool FROM idempotency_event WHERE at >= $1::timestamptz - interval '${RECORDING_LOOKBACK}' AND at <= $1::timestamptz
       ${scope.tenants ? `AND tenant = ANY($${recordingParams.push(scope.tenants)}::text[])` : ""}`,
    recordingParams,
  );
  const recordingTools = new Set(recordingRows.map((r) => r.tool));

  const truth: MetricsTruth = { overall: empty(), tools: new Map(), tenants: new Map(), steps: [], recordingTools };
  const steps = Math.round((window.to.getTime() - window.from.getTime()) / window.stepMs + 0.5);
  for (let i = 0; i < Math.max(steps, 1); i++) truth.steps.push(empty());
  const of = <K>(map: Map<K, GroupTruth>, key: K) => map.get(key) ?? map.set(key, empty()).get(key)!;
  for (const row of counted) {
    const n = Number(row.n);
    const groups = [of(truth.tools, row.tool), of(truth.tenants, row.tenant), truth.overall];
    const point = row.measure === "stuck" ? undefined : truth.steps[row.step];
    if (point) groups.push(point);
    const records = recordingTools.has(row.tool);
    for (const g of groups) {
      if (records) g.recording = true;
      switch (row.measure) {
        case "executions":
          g.executions += n;
          if (records) g.executionsOfRecordingTools += n;
          break;
        case "completed":
          g.completed += n;
          break;
        case "replay_served":
          g.replaysServed += n;
          break;
        case "in_flight_rejected":
          g.inFlightRejected += n;
          break;
        case "outcome_unknown":
          g.outcomeUnknown += n;
          break;
        case "by_operator":
          g.resolvedByOperator += n;
          break;
        case "by_reconciler":
          g.resolvedByReconciler += n;
          break;
        case "stuck":
          g.stuckNow += n;
          break;
      }
    }
  }
  for (const [tool, g] of truth.tools) g.recording = recordingTools.has(tool);
  truth.overall.recording = scope.tool !== null ? recordingTools.has(scope.tool) : recordingTools.size > 0;

  await percentiles(db, window, scope, truth);
  return truth;
}

/** Nearest-rank (percentile_disc) per tool, per tenant and overall: writers' completions, and the console's resolutions apart. */
async function percentiles(
  db: TruthDb,
  window: { from: Date; to: Date },
  scope: Scope,
  truth: MetricsTruth,
): Promise<void> {
  const params: unknown[] = [window.from.toISOString(), window.to.toISOString()];
  const p = (v: unknown) => `$${params.push(v)}`;
  const parts: string[] = [];
  if (scope.tenants) parts.push(`tenant = ANY(${p(scope.tenants)}::text[])`);
  if (scope.tenant) parts.push(`tenant = ${p(scope.tenant)}`);
  if (scope.tool) parts.push(`tool = ${p(scope.tool)}`);
  const scoped = parts.map((s) => ` AND ${s}`).join("");
  const rows = await db.query<{
    tenant: string | null;
    tool: string | null;
    g_tenant: number;
    g_tool: number;
    who: string;
    p50: number;
    p95: number;
  }>(
    `
    WITH durations AS (
      SELECT i.tenant, COALESCE(i.tool, '') AS tool, 'writer' AS who, extract(epoch FROM (i.updated_at - i.created_at)) * 1000 AS ms
        FROM idempotency i
       WHERE i.status = 'completed' AND i.updated_at >= $1::timestamptz AND i.updated_at < $2::timestamptz
         AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.key = i.key AND a.action = 'record.complete')
      UNION ALL
      SELECT COALESCE(tenant, before->>'tenant'), COALESCE(before->>'tool', ''),
             CASE WHEN ${BY_RECONCILER} THEN 'reconciler' ELSE 'operator' END,
             extract(epoch FROM (at - (before->>'createdAt')::timestamptz)) * 1000
        FROM audit_log
       WHERE action IN ${RESOLVE_ACTIONS} AND at >= $1::timestamptz AND at < $2::timestamptz AND before->>'createdAt' IS NOT NULL
    )
    SELECT tenant, tool, GROUPING(tenant) AS g_tenant, GROUPING(tool) AS g_tool, who,
           percentile_disc(0.5) WITHIN GROUP (ORDER BY ms)::float8 AS p50, percentile_disc(0.95) WITHIN GROUP (ORDER BY ms)::float8 AS p95
      FROM durations WHERE true ${scoped}
     GROUP BY GROUPING SETS ((who, tool), (who, tenant), (who))`,
    params,
  );
  for (const r of rows) {
    const group =
      r.g_tool === 0
        ? truth.tools.get(r.tool ?? "")
        : r.g_tenant === 0
          ? truth.tenants.get(r.tenant ?? "")
          : truth.overall;
    if (!group) continue;
    if (r.who === "writer") Object.assign(group, { completeP50Ms: r.p50, completeP95Ms: r.p95 });
    if (r.who === "operator") Object.assign(group, { operatorResolveP50Ms: r.p50, operatorResolveP95Ms: r.p95 });
    if (r.who === "reconciler") Object.assign(group, { reconcilerResolveP50Ms: r.p50, reconcilerResolveP95Ms: r.p95 });
  }
}

/** The window the metrics read at `now` (whole steps, the last one partial), computed here. */
export function metricsWindow(window: "1h" | "24h" | "48h", now: Date): { from: Date; to: Date; stepMs: number } {
  const { steps, stepMs } = {
    "1h": { steps: 12, stepMs: 300_000 },
    "24h": { steps: 24, stepMs: 3_600_000 },
    "48h": { steps: 48, stepMs: 3_600_000 },
  }[window];
  const from = new Date(Math.floor(now.getTime() / stepMs) * stepMs - (steps - 1) * stepMs);
  return { from, to: now, stepMs };
}

/**
 * Claims stuck at each instant by the definition itself: claimed longer ago than the tool's
 * threshold and not yet completed or resolved then — a writer's completion by its updated_at (a
 * completion without one gives no time: its claim counts as completed at once), the console's
 * resolutions by their audit rows (a released row is gone from the table). The series shows a
 * lower bound of this.
 */
export async function stuckAtTruth(db: TruthDb, instants: Date[], scope: Scope): Promise<number[]> {
  const params: unknown[] = [instants.map((t) => t.toISOString()), JSON.stringify(db.thresholds.byTool)];
  const p = (v: unknown) => `$${params.push(v)}`;
  const scopeOn = (tenant: string, tool: string) => {
    const parts: string[] = [];
    if (scope.tenants) parts.push(`${tenant} = ANY(${p(scope.tenants)}::text[])`);
    if (scope.tenant) parts.push(`${tenant} = ${p(scope.tenant)}`);
    if (scope.tool) parts.push(`${tool} = ${p(scope.tool)}`);
    return parts.map((s) => ` AND ${s}`).join("");
  };
  const rows = await db.query<{ i: number; n: string }>(
    `WITH claims AS (
       SELECT COALESCE(tool, '') AS tool, created_at,
              CASE WHEN status = 'completed' THEN COALESCE(updated_at, created_at) END AS closed_at
         FROM idempotency i
        WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.key = i.key AND a.action = 'record.complete')
              ${scopeOn("tenant", "COALESCE(tool, '')")}
       UNION ALL
       SELECT COALESCE(before->>'tool', ''), (before->>'createdAt')::timestamptz, at FROM audit_log
        WHERE action IN ${RESOLVE_ACTIONS} AND before->>'status' = 'in_progress'
              ${scopeOn("COALESCE(tenant, before->>'tenant')", "COALESCE(before->>'tool', '')")}
     )
     SELECT e.i::int AS i, count(c.tool) AS n
       FROM unnest($1::timestamptz[]) WITH ORDINALITY AS e(t, i)
       LEFT JOIN claims c ON c.created_at < e.t - COALESCE(($2::jsonb ->> c.tool)::float8, ${db.thresholds.defaultMs}) * interval '1 millisecond'
                         AND (c.closed_at IS NULL OR c.closed_at > e.t)
      GROUP BY e.i`,
    params,
  );
  const counts = instants.map(() => 0);
  for (const r of rows) counts[r.i - 1] = Number(r.n);
  return counts;
}
