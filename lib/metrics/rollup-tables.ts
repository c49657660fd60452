import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { StoredHistogram } from "./latency-histogram";
import { NO_FIGURES, type CountRow, type LatencyKind, type LatencyRow } from "./source-counts";

type Tx = Pick<Prisma.TransactionClient, "$executeRaw">;

/** The two rollup grains share columns; only the table and its time column differ. */
const GRAINS = {
  hour: { table: "metrics_hourly", column: "hour" },
  minute: { table: "metrics_minute", column: "minute" },
} as const;

export type RollupGrain = keyof typeof GRAINS;

/** A rolled row's three histograms: the writers' time to complete, and the console's resolution delays. */
export type StoredHistograms = Record<LatencyKind, StoredHistogram>;

export function emptyStoredHistograms(): StoredHistograms {
  return { writer: {}, operator: {}, reconciler: {} };
}

/**
 * Writes the figures of steps being rolled up, one row per (step, tenant, tool) with its latency
 * histograms (writers: `latency`; console resolutions: `operator_latency`, `reconciler_latency`). ON CONFLICT DO NOTHING: callers hold the rollup's advisory lock and write only steps
 * not rolled up yet, so a conflict would mean a step written twice — the first write stands.
 */
export async function insertRolledFigures(
  tx: Tx,
  grain: RollupGrain,
  counts: CountRow[],
  latency: LatencyRow[],
): Promise<void> {
  const rows = new Map<string, CountRow & { latency: StoredHistograms }>();
  const keyOf = (r: { step: Date; tenant: string; tool: string }) => `${r.step.getTime()}|${r.tenant}|${r.tool}`;
  for (const c of counts) rows.set(keyOf(c), { ...c, latency: emptyStoredHistograms() });
  for (const l of latency) {
    // A completion or resolution is counted where its latency is; a histogram without its count row would be a bug upstream, kept rather than lost.
    let row = rows.get(keyOf(l));
    if (!row)
      rows.set(
        keyOf(l),
        (row = { step: l.step, tenant: l.tenant, tool: l.tool, ...NO_FIGURES, latency: emptyStoredHistograms() }),
      );
    const histogram = row.latency[l.kind];
    histogram[String(l.bucket)] = (histogram[String(l.bucket)] ?? 0) + l.completions;
  }
  if (rows.size === 0) return;
  const all = [...rows.values()];
  // Fixed identifiers from GRAINS, never input.
  const { table, column } = GRAINS[grain];
  await tx.$executeRaw`
    INSERT INTO ${Prisma.raw(table)} (${Prisma.raw(column)}, tenant, tool, executions, completed, replays_served, in_flight_rejected, outcome_unknown, resolved_by_operator, resolved_by_reconciler, latency, operator_latency, reconciler_latency)
    SELECT * FROM unnest(
      ${all.map((c) => c.step)}::timestamptz[],
      ${all.map((c) => c.tenant)}::text[], ${all.map((c) => c.tool)}::text[],
      ${all.map((c) => c.executions)}::int8[], ${all.map((c) => c.completed)}::int8[],
      ${all.map((c) => c.replaysServed)}::int8[], ${all.map((c) => c.inFlightRejected)}::int8[],
      ${all.map((c) => c.outcomeUnknown)}::int8[], ${all.map((c) => c.resolvedByOperator)}::int8[],
      ${all.map((c) => c.resolvedByReconciler)}::int8[], ${all.map((c) => JSON.stringify(c.latency.writer))}::text[]::jsonb[],
      ${all.map((c) => JSON.stringify(c.latency.operator))}::text[]::jsonb[], ${all.map((c) => JSON.stringify(c.latency.reconciler))}::text[]::jsonb[])
    ON CONFLICT DO NOTHING`;
}
