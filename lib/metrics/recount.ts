import "server-only";
import { writeAudit } from "@/lib/audit/write-audit";
import { can } from "@/lib/auth/permissions";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { HOUR_MS, floorTo } from "./metrics-window";
import { BACKGROUND_ROLLUP_STATEMENT_TIMEOUT_MS } from "./background-rollup";
import { MINUTE_ROLLUP_LOCK_ID, countPendingMinutesInto } from "./minute-rollup";
import { HOUR_ROLLUP_LOCK_ID, countHourInto, lastClosedHour, takeRollupLock } from "./rollup";

/** The audit actions whose rows say "rows created before `evidence.cutoff` were deleted". */
const TRIM_ACTIONS = ["retention.trim", "retention.trim_unresolved", "retention.trim_events"];

export type RecountOutcome =
  | {
      ok: true;
      /** The first hour recounted (ISO): `from`, floored to its UTC hour. */
      from: string;
      /** Rolled-up hours and minute slices that were discarded. */
      discarded: { hours: number; slices: number };
      /** What was counted again from the base tables: every closed hour from `from` on, and the slices of the open hours. */
      counted: { hours: number; slices: number; firstHour: string | null; lastHour: string | null; durationMs: number };
      auditId: string;
    }
  | { ok: false; reason: "forbidden" }
  | { ok: false; reason: "in_future"; from: string }
  /** Rows before `trimmedBefore` are gone: counting their hours again would lose figures that outlive the table. */
  | { ok: false; reason: "trimmed"; from: string; trimmedBefore: string; earliestFrom: string };

/** Counting an hour at 100 M claims a day takes ~17 s: a recount of days of them has this long. */
const RECOUNT_TRANSACTION_TIMEOUT_MS = 60 * 60_000;

/**
 * Counts the metrics again from `from` on, after a backfill (rows written into hours already rolled
 * up: a restore, a bulk import, a writer whose clock ran behind). A rolled hour is frozen on
 * purpose (rollup.ts), so rows that arrive in it later are missing from every figure until it is
 * counted again.
 *
 * One transaction under both roll-up locks: it discards the rolled hours and minute slices from
 * the hour holding `from`, counts every closed hour from there and the open hours' slices again
 * from the base tables, and writes the audit row. Readers keep the old figures until it commits
 * (they see no hour missing, so they roll up nothing themselves), then the new ones; the
 * background roller finds the lock held and skips its rounds meanwhile.
 *
 * Refused before the newest trim's cutoff: trimmed rows are gone, and their hours' figures exist
 * only in the roll-up.
 */
export async function recountMetrics(db: Db, actor: Actor, from: Date, now: Date): Promise<RecountOutcome> {
  if (!can(actor.role, "metrics:recount")) return { ok: false, reason: "forbidden" };
  const fromHour = floorTo(from, HOUR_MS);
  if (fromHour > now) return { ok: false, reason: "in_future", from: fromHour.toISOString() };
  const started = Date.now();
  const done = await db.$transaction(
    async (tx) => {
      // Hour lock first, as nothing else takes both: no deadlock with a roll-up holding either.
      await takeRollupLock(tx, HOUR_ROLLUP_LOCK_ID, { statementTimeoutMs: BACKGROUND_ROLLUP_STATEMENT_TIMEOUT_MS });
      await takeRollupLock(tx, MINUTE_ROLLUP_LOCK_ID, {});
      const [trim] = await tx.$queryRaw<{ cutoff: Date | null }[]>`
        SELECT max((evidence->>'cutoff')::timestamptz) AS cutoff FROM audit_log WHERE action = ANY(${TRIM_ACTIONS}::text[])`;
      if (trim?.cutoff && fromHour < trim.cutoff) return { refused: true as const, trimmedBefore: trim.cutoff };
      await tx.$executeRaw`DELETE FROM metrics_hourly WHERE hour >= ${fromHour}::timestamptz`;
      const hours = await tx.$executeRaw`DELETE FROM metrics_rollup_hour WHERE hour >= ${fromHour}::timestamptz`;
      await tx.$executeRaw`DELETE FROM metrics_minute WHERE minute >= ${fromHour}::timestamptz`;
      const slices = await tx.$executeRaw`DELETE FROM metrics_rollup_minute WHERE minute >= ${fromHour}::timestamptz`;
      const closed: Date[] = [];
      for (let hour = fromHour.getTime(); hour <= lastClosedHour(now).getTime(); hour += HOUR_MS)
        closed.push(new Date(hour));
      for (const hour of closed) await countHourInto(tx, hour);
      const countedSlices = await countPendingMinutesInto(tx, now);
      const counted = {
        hours: closed.length,
        slices: countedSlices,
        firstHour: closed[0]?.toISOString() ?? null,
        lastHour: closed.at(-1)?.toISOString() ?? null,
        durationMs: Date.now() - started,
      };
      const entry = await writeAudit(tx, actor, {
        action: "metrics.recount",
        reason: `metrics counted again from ${fromHour.toISOString()}: ${hours} rolled hours and ${slices} minute slices discarded, ${counted.hours} hours and ${counted.slices} slices counted from the base tables`,
        evidence: { from: fromHour.toISOString(), hours, slices, counted },
      });
      return { refused: false as const, discarded: { hours, slices }, counted, auditId: entry.id.toString() };
    },
    { timeout: RECOUNT_TRANSACTION_TIMEOUT_MS, maxWait: 60_000 },
  );
  if (done.refused)
    return {
      ok: false,
      reason: "trimmed",
      from: fromHour.toISOString(),
      trimmedBefore: done.trimmedBefore.toISOString(),
      // The hour holding the cutoff is partly trimmed: the first whole hour after it.
      earliestFrom: new Date(Math.ceil(done.trimmedBefore.getTime() / HOUR_MS) * HOUR_MS).toISOString(),
    };
  return {
    ok: true,
    from: fromHour.toISOString(),
    discarded: done.discarded,
    counted: done.counted,
    auditId: done.auditId,
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
