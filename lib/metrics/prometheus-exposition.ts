import "server-only";
import { Counter, Gauge, Registry } from "prom-client";
import { REPEAT_DELAY_EDGES_S } from "@/lib/repeats/repeat-delay-buckets";
import type { ScrapeFigures } from "./scrape-figures";

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

const seconds = (ms: number) => ms / 1000;
const epochSeconds = (at: Date | null | undefined) => (at ? at.getTime() / 1000 : 0);

/**
 * The figures of one scrape in the Prometheus text format. A fresh Registry each time: the values
 * are read from the database per scrape (the counters are sums the database keeps), so nothing is
 * held between scrapes and two console instances answer alike. Not the global default registry,
 * which would keep series of tools and tenants that are gone.
 */
export async function toExposition(
  figures: ScrapeFigures,
  info: { version: string; consoleUrl: string },
): Promise<string> {
  const registers = [new Registry()];
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers });
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers });
  const nowS = figures.now.getTime() / 1000;

  const inProgress = gauge(
    "idem_claims_in_progress",
    'Claims in_progress now (no outcome yet), by tool and tenant; tool="" when the writer did not record it.',
    ["tool", "tenant"],
  );
  const stuck = gauge(
    "idem_claims_stuck",
    "Claims in_progress for longer than their tool's stuckAfter threshold, by tool and tenant.",
    ["tool", "tenant"],
  );
  for (const row of figures.openClaims) {
    inProgress.set({ tool: row.tool, tenant: row.tenant }, row.inProgress);
    stuck.set({ tool: row.tool, tenant: row.tenant }, row.stuck);
  }
  const oldestStuck = gauge(
    "idem_oldest_stuck_claim_age_seconds",
    "Age of the oldest stuck claim of the tool; absent when the tool has none.",
    ["tool"],
  );
  for (const [tool, at] of figures.oldestStuckByTool) oldestStuck.set({ tool }, nowS - at.getTime() / 1000);
  const threshold = gauge(
    "idem_stuck_threshold_seconds",
    'The tool\'s stuckAfter threshold (idem.config.json); tool="" is the default for every other tool.',
    ["tool"],
  );
  for (const [tool, ms] of figures.stuckThresholdMs) threshold.set({ tool }, seconds(ms));
  const unknown = gauge(
    "idem_outcome_unknown_unresolved",
    "Claims still in_progress after a writer reported their outcome unknown (an outcome_unknown event).",
    ["tool"],
  );
  for (const [tool, count] of figures.unresolvedOutcomeUnknown) unknown.set({ tool }, count);
  const hint = gauge(
    "idem_tool_idempotent_hint",
    "1 for a tool whose MCP listing declares idempotentHint: true (hosts may retry it on that promise).",
    ["tool"],
  );
  for (const tool of figures.idempotentHintTools) hint.set({ tool }, 1);

  const executions = counter("idem_executions_total", "Claims made (keys written), from the rollups.", ["tool"]);
  const replays = counter(
    "idem_replays_served_total",
    "Repeats answered with the stored outcome instead of running again, from the rollups.",
    ["tool"],
  );
  const rejections = counter(
    "idem_in_flight_rejections_total",
    "Repeats refused because the first call was still in flight, from the rollups.",
    ["tool"],
  );
  const outcomeUnknown = counter(
    "idem_outcome_unknown_total",
    "Calls whose writer could not tell whether the side effect happened (outcome_unknown events), from the rollups.",
    ["tool"],
  );
  for (const row of figures.counters) {
    executions.inc({ tool: row.tool }, row.executions);
    replays.inc({ tool: row.tool }, row.replaysServed);
    rejections.inc({ tool: row.tool }, row.inFlightRejected);
    outcomeUnknown.inc({ tool: row.tool }, row.outcomeUnknown);
  }
  const duplicates = counter(
    "idem_duplicates_through_total",
    "Duplicates that got through: one operation (tenant, subject, tool, arguments) executed under two keys less than a window apart, by tool and tenant. Only writers that record arguments_sha256 are counted.",
    ["tool", "tenant"],
  );
  for (const row of figures.duplicatesThrough) duplicates.inc({ tool: row.tool, tenant: row.tenant }, row.count);
  registers[0]!.registerMetric(repeatDelayHistogram(figures.repeatDelays) as never);
  const resolutions = counter(
    "idem_resolutions_total",
    "Stuck claims the console resolved, by tool, action (complete, release, force_release) and by (operator, bulk, reconciler).",
    ["tool", "action", "by"],
  );
  for (const row of figures.resolutions) resolutions.inc({ tool: row.tool, action: row.action, by: row.by }, row.count);

  const reconcile = figures.jobs.reconcile;
  gauge(
    "idem_reconciler_last_run_timestamp_seconds",
    "When the last reconcile run (not a dry run) finished, Unix seconds; 0 if it never ran.",
  ).set(epochSeconds(reconcile?.finishedAt));
  gauge(
    "idem_reconciler_unresolved",
    "Claims the last reconcile run left in_progress (outcome unknown, conflict or error).",
  ).set(reconcile?.leftUnknown ?? 0);
  gauge(
    "idem_trim_last_run_timestamp_seconds",
    "When the last trim (not a dry run) finished, Unix seconds; 0 if it never ran.",
  ).set(epochSeconds(figures.jobs.trim?.finishedAt));
  gauge(
    "idem_bulk_apply_last_run_timestamp_seconds",
    "When the last bulk apply (an operator's batch of planned resolutions) finished, Unix seconds; 0 if none ran.",
  ).set(epochSeconds(figures.jobs.bulk_apply?.finishedAt));
  const unfinished = gauge(
    "idem_job_runs_unfinished",
    "Runs (not dry runs) of a job that died, their heartbeat stopped without an end, since the job's last finished run; by task (trim, reconcile, bulk_apply). The next run finishes what they left.",
    ["task"],
  );
  for (const [task, dead] of Object.entries(figures.deadRuns)) unfinished.set({ task }, dead.count);
  gauge(
    "idem_audit_chain_verified_timestamp_seconds",
    "When the last `idem audit verify` finished, Unix seconds, whatever it found; 0 if the audit chain was never verified.",
  ).set(epochSeconds(figures.auditChain?.finishedAt));
  // Absent until a first verification: 1 would claim a check nobody ran, 0 a break nobody found.
  if (figures.auditChain)
    gauge(
      "idem_audit_chain_ok",
      "1 when the last `idem audit verify` found every audit row's content and link intact, 0 when it named a row that did not match.",
    ).set(figures.auditChain.ok ? 1 : 0);

  const table = figures.table;
  gauge(
    "idem_table_bytes",
    "The idempotency table's size on disk with its TOAST and indexes (pg_total_relation_size).",
  ).set(table.totalBytes);
  if (table.rowsEstimate !== null)
    gauge(
      "idem_table_rows_estimate",
      "The idempotency table's rows as the planner estimates them (pg_class.reltuples scaled to its pages); an estimate, not a count.",
    ).set(table.rowsEstimate);
  gauge("idem_oldest_row_age_seconds", "Age of the oldest row in the idempotency table; 0 when it is empty.").set(
    table.oldestCreatedAt ? nowS - table.oldestCreatedAt.getTime() / 1000 : 0,
  );
  gauge("idem_retention_seconds", "How long rows are kept (the trim deletes older ones).").set(
    seconds(figures.retentionMs),
  );
  gauge("idem_console_info", "The console answering this scrape: its version and the URL alerts link to.", [
    "version",
    "console_url",
  ]).set({ version: info.version, console_url: info.consoleUrl }, 1);

  return registers[0]!.metrics();
}

/**
 * `idem_repeat_delay_seconds{tool}` from the scan's stored bucket counts: prom-client's Histogram can
 * only observe values one by one, so this is a metric object its registry writes out the same way.
 */
function repeatDelayHistogram(rows: ScrapeFigures["repeatDelays"]) {
  const name = "idem_repeat_delay_seconds";
  const help =
    "Repeats writers recorded (replays served, in-flight rejections), by their delay after the first call, by tool. The le edges include the bands' (1, 20, 90 s) and the default window's (900 s).";
  const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
  for (const row of rows) {
    let cumulative = 0;
    row.buckets.forEach((n, i) => {
      cumulative += n;
      const le = REPEAT_DELAY_EDGES_S[i] ?? "+Inf";
      values.push({ metricName: `${name}_bucket`, labels: { tool: row.tool, le }, value: cumulative });
    });
    values.push({ metricName: `${name}_sum`, labels: { tool: row.tool }, value: row.sumMs / 1000 });
    values.push({ metricName: `${name}_count`, labels: { tool: row.tool }, value: cumulative });
  }
  return { name, help, type: "histogram", get: async () => ({ name, help, type: "histogram", values }) };
}
