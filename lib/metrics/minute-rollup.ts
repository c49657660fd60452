import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { MINUTE_MS, floorTo } from "./metrics-window";
import { lastClosedHour, takeRollupLock, type RollupTransactionOptions } from "./rollup";
import { insertRolledFigures } from "./rollup-tables";
import { UNSCOPED, sourceCounts, sourceLatency } from "./source-counts";

/**
 * Minute slices of the hours the hourly rollup has not closed. Without them the current hour is
 * counted from the base tables on every request: at 60 calls a second up to 230,000 rows, 1.3 s
 * at 10 M rows (docs/bench.md). With them a request counts live only the minute or two since the
 * newest settled minute.
 *
 * A minute is rolled up once it ended MINUTE_SETTLE_MS ago, by the rules of source-counts.ts, and
 * listed in metrics_rollup_minute in the same transaction; pending minutes are rolled in one
 * transaction (one pass over their rows), under their own advisory lock.
 *
 * Why a shorter settle than the hour's 5 minutes is safe: slices are provisional. A row committed
 * more than MINUTE_SETTLE_MS after its timestamp (a writer whose clock runs behind; a reconciler
 * transaction that waited on a processor slower than its default 5 s timeout; a backfill) is
 * missing from its slice until its hour is rolled up from the base tables after the hour's own
 * settle — then the hour's figures are exact, and its slices are pruned. 10 s covers the default
 * reconciler transaction (5 s processor timeout + 2 s margin); other commits lag by milliseconds.
 * Shorter is cheaper: the live tail is between MINUTE_SETTLE_MS and a minute more (at 60 calls a
 * second, 600–4,200 rows; docs/bench.md).
 *
 * Which minutes: from the start of the newest closed hour (so the 1 h window's steps, and any hour
 * still settling, are covered) to the newest settled minute — at most about 125 minutes.
 */
export const MINUTE_SETTLE_MS = 10_000;
export const MINUTE_ROLLUP_LOCK_ID = 7_2707_607;
const MINUTES_TRANSACTION_TIMEOUT_MS = 120_000;

export type MinuteRollupResult = { rolledUp: number; pruned: number; durationMs: number };

/** The start of the newest minute that has settled at `now`. */
export function lastClosedMinute(now: Date): Date {
  return new Date(floorTo(new Date(now.getTime() - MINUTE_SETTLE_MS), MINUTE_MS).getTime() - MINUTE_MS);
}

/** The first minute slices are kept for: the start of the newest closed hour. */
export function firstSliceMinute(now: Date): Date {
  return lastClosedHour(now);
}

async function pendingMinutes(db: Pick<Db, "$queryRaw">, now: Date): Promise<Date[]> {
  const first = firstSliceMinute(now);
  const last = lastClosedMinute(now);
  if (last < first) return [];
  const rows = await db.$queryRaw<{ minute: Date }[]>`
    SELECT m AS minute FROM generate_series(${first}::timestamptz, ${last}::timestamptz, interval '1 minute') AS m
    WHERE NOT EXISTS (SELECT 1 FROM metrics_rollup_minute r WHERE r.minute = m)
    ORDER BY m`;
  return rows.map((r) => r.minute);
}

export async function rollUpClosedMinutes(
  db: Db,
  now: Date,
  options: RollupTransactionOptions = {},
): Promise<MinuteRollupResult> {
  const started = Date.now();
  // The common case — nothing settled since the last request — costs one small read, no lock.
  if ((await pendingMinutes(db, now)).length === 0) return { rolledUp: 0, pruned: 0, durationMs: Date.now() - started };
  return db.$transaction(
    async (tx) => {
      if (!(await takeRollupLock(tx, MINUTE_ROLLUP_LOCK_ID, options)))
        return { rolledUp: 0, pruned: 0, durationMs: Date.now() - started };
      // Re-read under the lock: a concurrent request may have rolled them while this one waited.
      const rolledUp = await countPendingMinutesInto(tx, now);
      const pruned = await pruneSlices(tx, now);
      return { rolledUp, pruned, durationMs: Date.now() - started };
    },
    { timeout: MINUTES_TRANSACTION_TIMEOUT_MS, maxWait: MINUTES_TRANSACTION_TIMEOUT_MS },
  );
}

/**
 * Counts the minutes no slice covers yet (of firstSliceMinute … lastClosedMinute) and lists them, in
 * the caller's transaction, under the minute lock it holds; how many.
 */
export async function countPendingMinutesInto(tx: Prisma.TransactionClient, now: Date): Promise<number> {
  const pending = await pendingMinutes(tx, now);
  if (pending.length === 0) return 0;
  const wanted = new Set(pending.map((m) => m.getTime()));
  const range = {
    from: pending[0]!,
    to: new Date(pending[pending.length - 1]!.getTime() + MINUTE_MS),
    stepMs: MINUTE_MS,
  };
  // One pass over the pending range; minutes inside it that were already rolled keep their slices.
  const counts = (await sourceCounts(tx, range, UNSCOPED)).filter((r) => wanted.has(r.step.getTime()));
  const latency = (await sourceLatency(tx, range, UNSCOPED)).filter((r) => wanted.has(r.step.getTime()));
  await insertRolledFigures(tx, "minute", counts, latency);
  await tx.$executeRaw`INSERT INTO metrics_rollup_minute (minute) SELECT * FROM unnest(${pending}::timestamptz[])`;
  return pending.length;
}

/**
 * Drops the slices of hours that are rolled up and older than the slice range: readers never use
 * a rolled-up hour's slices. Slices of an hour the hourly rollup has not reached yet stay.
 */
async function pruneSlices(tx: Pick<Db, "$executeRaw">, now: Date): Promise<number> {
  const before = firstSliceMinute(now);
  const pruned = await tx.$executeRaw`
    DELETE FROM metrics_rollup_minute m WHERE minute < ${before}::timestamptz
      AND EXISTS (SELECT 1 FROM metrics_rollup_hour h WHERE h.hour = date_trunc('hour', m.minute, 'UTC'))`;
  await tx.$executeRaw`
    DELETE FROM metrics_minute m WHERE minute < ${before}::timestamptz
      AND EXISTS (SELECT 1 FROM metrics_rollup_hour h WHERE h.hour = date_trunc('hour', m.minute, 'UTC'))`;
  return pruned;
}

/** Of `hours`, those not wholly covered by rolled-up minute slices (all 60 of their minutes). */
export async function hoursWithoutSlices(db: Pick<Db, "$queryRaw">, hours: Date[]): Promise<Date[]> {
  if (hours.length === 0) return [];
  const rows = await db.$queryRaw<{ hour: Date }[]>`
    SELECT h AS hour FROM unnest(${hours}::timestamptz[]) AS h
    WHERE (SELECT count(*) FROM metrics_rollup_minute r
           WHERE r.minute >= h AND r.minute < h + interval '1 hour') < 60
    ORDER BY h`;
  return rows.map((r) => r.hour);
}
