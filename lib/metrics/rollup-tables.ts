import { Prisma } from "@/generated/prisma/client";
import type { CountRow, LatencyRow } from "./source-counts";

type Tx = Pick<Prisma.TransactionClient, "$executeRaw">;

/** The two rollup grains share columns; only the table names and the time column differ. */
const GRAINS = {
  hour: { counts: "metrics_hourly", latency: "metrics_hourly_latency", column: "hour" },
  minute: { counts: "metrics_minute", latency: "metrics_minute_latency", column: "minute" },
} as const;

export type RollupGrain = keyof typeof GRAINS;

/**
 * Writes the figures of steps being rolled up, each row under its own step. ON CONFLICT DO NOTHING:
 * callers hold the rollup's advisory lock and write only steps not rolled up yet, so a conflict
 * would mean a step written twice — the first write stands.
 */
export async function insertRolledFigures(tx: Tx, grain: RollupGrain, counts: CountRow[], latency: LatencyRow[]): Promise<void> {
  // Fixed identifiers from GRAINS, never input.
  const { counts: countsTable, latency: latencyTable, column } = GRAINS[grain];
  if (counts.length > 0) {
    await tx.$executeRaw`
      INSERT INTO ${Prisma.raw(countsTable)} (${Prisma.raw(column)}, tenant, tool, executions, completed, replays_served, in_flight_rejected, outcome_unknown, resolved_by_operator, resolved_by_reconciler)
      SELECT * FROM unnest(
        ${counts.map((c) => c.step)}::timestamptz[],
        ${counts.map((c) => c.tenant)}::text[], ${counts.map((c) => c.tool)}::text[],
        ${counts.map((c) => c.executions)}::int8[], ${counts.map((c) => c.completed)}::int8[],
        ${counts.map((c) => c.replaysServed)}::int8[], ${counts.map((c) => c.inFlightRejected)}::int8[],
        ${counts.map((c) => c.outcomeUnknown)}::int8[], ${counts.map((c) => c.resolvedByOperator)}::int8[],
        ${counts.map((c) => c.resolvedByReconciler)}::int8[])
      ON CONFLICT DO NOTHING`;
  }
  if (latency.length > 0) {
    await tx.$executeRaw`
      INSERT INTO ${Prisma.raw(latencyTable)} (${Prisma.raw(column)}, tenant, tool, bucket, completions)
      SELECT * FROM unnest(
        ${latency.map((l) => l.step)}::timestamptz[],
        ${latency.map((l) => l.tenant)}::text[], ${latency.map((l) => l.tool)}::text[],
        ${latency.map((l) => l.bucket)}::int2[], ${latency.map((l) => l.completions)}::int8[])
      ON CONFLICT DO NOTHING`;
  }
}
