import "server-only";
import { writeAudit } from "@/lib/audit/write-audit";
import { can } from "@/lib/auth/permissions";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { HOUR_MS, floorTo } from "./metrics-window";
import { rollUpSettled, type SettledRollupResult } from "./roll-up-settled";
import { BACKGROUND_ROLLUP_STATEMENT_TIMEOUT_MS } from "./background-rollup";
import { MINUTE_ROLLUP_LOCK_ID } from "./minute-rollup";
import { HOUR_ROLLUP_LOCK_ID, lastClosedHour, takeRollupLock } from "./rollup";

/** The audit actions whose rows say "rows created before `evidence.cutoff` were deleted". */
const TRIM_ACTIONS = ["retention.trim", "retention.trim_unresolved", "retention.trim_events"];

export type RecountOutcome =
  | {
      ok: true;
      /** The first hour recounted (ISO): `from`, floored to its UTC hour. */
      from: string;
      /** Rolled-up hours and minute slices that were discarded, then counted again. */
      discarded: { hours: number; slices: number };
      rollup: SettledRollupResult;
      auditId: string;
    }
  | { ok: false; reason: "forbidden" }
  | { ok: false; reason: "in_future"; from: string }
  /** Rows before `trimmedBefore` are gone: counting their hours again would lose figures that outlive the table. */
  | { ok: false; reason: "trimmed"; from: string; trimmedBefore: string; earliestFrom: string };

/**
 * Counts the metrics again from `from` on, after a backfill (rows written into hours already rolled
 * up: a restore, a bulk import, a writer whose clock ran behind). A rolled hour is frozen on
 * purpose (rollup.ts), so rows that arrive in it later are missing from every figure until it is
 * counted again. This discards the rolled hours and minute slices from the hour holding `from`,
 * with an audit row, in one transaction under both roll-up locks (no roll-up runs halfway through
 * it), then rolls them up from the base tables. A read in between rolls up what it needs itself.
 *
 * Refused before the newest trim's cutoff: trimmed rows are gone, and their hours' figures exist
 * only in the roll-up.
 */
export async function recountMetrics(db: Db, actor: Actor, from: Date, now: Date): Promise<RecountOutcome> {
  if (!can(actor.role, "metrics:recount")) return { ok: false, reason: "forbidden" };
  const fromHour = floorTo(from, HOUR_MS);
  if (fromHour > now) return { ok: false, reason: "in_future", from: fromHour.toISOString() };
  const discarded = await db.$transaction(
    async (tx) => {
      // Hour lock first, as nothing else takes both: no deadlock with a roll-up holding either.
      await takeRollupLock(tx, HOUR_ROLLUP_LOCK_ID, {});
      await takeRollupLock(tx, MINUTE_ROLLUP_LOCK_ID, {});
      const [trim] = await tx.$queryRaw<{ cutoff: Date | null }[]>`
        SELECT max((evidence->>'cutoff')::timestamptz) AS cutoff FROM audit_log WHERE action = ANY(${TRIM_ACTIONS}::text[])`;
      if (trim?.cutoff && fromHour < trim.cutoff) return { refused: true as const, trimmedBefore: trim.cutoff };
      await tx.$executeRaw`DELETE FROM metrics_hourly WHERE hour >= ${fromHour}::timestamptz`;
      const hours = await tx.$executeRaw`DELETE FROM metrics_rollup_hour WHERE hour >= ${fromHour}::timestamptz`;
      await tx.$executeRaw`DELETE FROM metrics_minute WHERE minute >= ${fromHour}::timestamptz`;
      const slices = await tx.$executeRaw`DELETE FROM metrics_rollup_minute WHERE minute >= ${fromHour}::timestamptz`;
      const entry = await writeAudit(tx, actor, {
        action: "metrics.recount",
        reason: `metrics counted again from ${fromHour.toISOString()}: ${hours} rolled hours and ${slices} minute slices discarded`,
        evidence: { from: fromHour.toISOString(), hours, slices },
      });
      return { refused: false as const, hours, slices, auditId: entry.id.toString() };
    },
    { timeout: 60_000, maxWait: 60_000 },
  );
  if (discarded.refused)
    return {
      ok: false,
      reason: "trimmed",
      from: fromHour.toISOString(),
      trimmedBefore: discarded.trimmedBefore.toISOString(),
      // The hour holding the cutoff is partly trimmed: the first whole hour after it.
      earliestFrom: new Date(Math.ceil(discarded.trimmedBefore.getTime() / HOUR_MS) * HOUR_MS).toISOString(),
    };
  const catchUpHours = Math.max(1, Math.round((lastClosedHour(now).getTime() - fromHour.getTime()) / HOUR_MS) + 1);
  const rollup = await rollUpSettled(db, now, {
    catchUpHours,
    statementTimeoutMs: BACKGROUND_ROLLUP_STATEMENT_TIMEOUT_MS,
  });
  return {
    ok: true,
    from: fromHour.toISOString(),
    discarded: { hours: discarded.hours, slices: discarded.slices },
    rollup,
    auditId: discarded.auditId,
  };
}

/**
 * After writing rows stamped from `from` on (seed-demo into a database a console already serves):
 * a recount when some hour from there on is rolled up already, null when none is (a fresh
 * database: the roll-up will count the rows the first time).
 */
export async function recountAfterBackfill(
  db: Db,
  actor: Actor,
  from: Date,
  now: Date,
): Promise<RecountOutcome | null> {
  const [rolled] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM metrics_rollup_hour WHERE hour >= ${floorTo(from, HOUR_MS)}::timestamptz`;
  const [sliced] = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM metrics_rollup_minute WHERE minute >= ${floorTo(from, HOUR_MS)}::timestamptz`;
  if (Number(rolled?.n ?? 0) + Number(sliced?.n ?? 0) === 0) return null;
  return recountMetrics(db, actor, from, now);
}
