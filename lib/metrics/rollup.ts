import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { HOUR_MS, MINUTE_MS, floorTo } from "./metrics-window";
import { insertRolledFigures } from "./rollup-tables";
import { UNSCOPED, sourceCounts, sourceLatency } from "./source-counts";

/**
 * Incremental hourly roll-up. Each closed hour is aggregated from the base tables once (the
 * rules of what counts where are in source-counts.ts), written to metrics_hourly and
 * its latency histogram column, and listed in metrics_rollup_hour in the same transaction — so an
 * hour is either fully rolled up or not at all, and re-running changes nothing.
 *
 * Why freezing an hour is right here: every figure is counted in the hour its event happened
 * (claim, completion, writer event, audit row), and those hours are in the past once closed.
 * Rows deleted afterwards — released claims, trim — leave the rolled-up counts as they were,
 * which is the point: figures outlive the 48 h table. A claim released *before* its hour was
 * rolled up is counted from its audit snapshot instead, so the timing of the roll-up does not
 * change the figures.
 *
 * "Closed" means the hour ended at least SETTLE_MS ago: timestamps are taken before their
 * statement commits (a writer's clock() before its UPDATE, the reconciler's now() at the start
 * of a transaction that waits on the processor for up to ~40 s), so a just-ended hour may still
 * receive rows. Until then the hour is read from minute slices (minute-rollup.ts) and its last
 * minute or so counted live. A writer whose clock runs more than SETTLE_MS behind, or a backfill
 * into the past, is not reflected until `idem rollup --recount-from` counts those hours again
 * (recount.ts; seed-demo does it itself).
 *
 * Who runs it: every console server in the background (background-rollup.ts, every 15 s) and
 * `idem rollup` from cron. A read (the metrics page and API, the tools evidence) rolls up only the
 * closed hours no minute slices cover (roll-up-settled.ts: a catch-up after a long pause or a
 * backfill); an hour its slices cover is read from them until the background makes it exact. A
 * transaction-level advisory lock serialises concurrent roll-ups, and the watermark is re-read
 * under it, so two callers never roll the same hour twice: the second waits (or, in the
 * background, skips the round), then finds it done.
 */
export const SETTLE_MS = 5 * MINUTE_MS;
/** How far back a roll-up looks for unrolled hours: the longest window plus a day of slack (the table keeps 48 h). */
export const CATCH_UP_HOURS = 72;
export const HOUR_ROLLUP_LOCK_ID = 7_2707_606;
/** One hour's aggregation is a few index ranges; generous for a large hour on a slow disk. */
const HOUR_TRANSACTION_TIMEOUT_MS = 120_000;

/**
 * How a roll-up transaction runs. `statementTimeoutMs`: set locally in the transaction (the
 * background roller has no request waiting on it; a 4.2 M-row hour takes ~17 s, past the console's
 * interactive limit). `skipWhenBusy`: another roll-up holding the lock ends the call instead of
 * being waited for (the background's next round finds the work done).
 */
export type RollupTransactionOptions = { statementTimeoutMs?: number; skipWhenBusy?: boolean };

export type RollupResult = {
  /** Hours rolled up by this call, oldest first (ISO). */
  rolledUp: string[];
  /** Hours this call found already rolled up by someone else while it waited. */
  skipped: number;
  durationMs: number;
  /** The start of the newest closed hour (ISO): figures before its end are final. */
  closedThrough: string;
};

/** The start of the newest hour that is closed at `now`, or of the hour before the first. */
export function lastClosedHour(now: Date): Date {
  return new Date(floorTo(new Date(now.getTime() - SETTLE_MS), HOUR_MS).getTime() - HOUR_MS);
}

export async function pendingHours(db: Db, now: Date, catchUpHours = CATCH_UP_HOURS): Promise<Date[]> {
  const last = lastClosedHour(now);
  const first = new Date(last.getTime() - (catchUpHours - 1) * HOUR_MS);
  const rows = await db.$queryRaw<{ hour: Date }[]>`
    SELECT h AS hour FROM generate_series(${first}::timestamptz, ${last}::timestamptz, interval '1 hour') AS h
    WHERE NOT EXISTS (SELECT 1 FROM metrics_rollup_hour r WHERE r.hour = h)
    ORDER BY h`;
  return rows.map((r) => r.hour);
}

export async function rollUpClosedHours(
  db: Db,
  now: Date,
  options: RollupTransactionOptions & {
    catchUpHours?: number;
    onHour?: (hour: Date, done: number, total: number) => void;
    /** Narrows the pending hours (a read leaves out those minute slices cover). */
    only?: (pending: Date[]) => Promise<Date[]>;
  } = {},
): Promise<RollupResult> {
  const started = Date.now();
  const pending = await pendingHours(db, now, options.catchUpHours);
  const hours = options.only && pending.length > 0 ? await options.only(pending) : pending;
  const rolledUp: string[] = [];
  let skipped = 0;
  for (const [i, hour] of hours.entries()) {
    const done = await rollUpHour(db, hour, options);
    if (done) rolledUp.push(hour.toISOString());
    else skipped += 1;
    options.onHour?.(hour, i + 1, hours.length);
  }
  return { rolledUp, skipped, durationMs: Date.now() - started, closedThrough: lastClosedHour(now).toISOString() };
}

/** Rolls up one hour unless it already is; true when this call did it. */
export async function rollUpHour(db: Db, hour: Date, options: RollupTransactionOptions = {}): Promise<boolean> {
  return db.$transaction(
    async (tx) => {
      if (!(await takeRollupLock(tx, HOUR_ROLLUP_LOCK_ID, options))) return false;
      const [already] = await tx.$queryRaw<
        { n: number }[]
      >`SELECT 1 AS n FROM metrics_rollup_hour WHERE hour = ${hour}::timestamptz`;
      if (already) return false;
      await countHourInto(tx, hour);
      return true;
    },
    { timeout: HOUR_TRANSACTION_TIMEOUT_MS, maxWait: HOUR_TRANSACTION_TIMEOUT_MS },
  );
}

/**
 * Counts one hour from the base tables and lists it, in the caller's transaction: the caller holds
 * the hour lock and knows the hour is not rolled up (rollUpHour; a recount, which discarded it).
 */
export async function countHourInto(tx: Prisma.TransactionClient, hour: Date): Promise<void> {
  const started = Date.now();
  const range = { from: hour, to: new Date(hour.getTime() + HOUR_MS), stepMs: HOUR_MS };
  const counts = await sourceCounts(tx, range, UNSCOPED);
  const latency = await sourceLatency(tx, range, UNSCOPED);
  await insertRolledFigures(tx, "hour", counts, latency);
  await tx.$executeRaw`INSERT INTO metrics_rollup_hour (hour, duration_ms) VALUES (${hour}::timestamptz, ${Date.now() - started})`;
}

/**
 * The roll-up's transaction-level advisory lock, and the transaction's limits: false when
 * `skipWhenBusy` and another roll-up holds it.
 */
export async function takeRollupLock(
  tx: Pick<Db, "$executeRaw" | "$executeRawUnsafe" | "$queryRaw">,
  lockId: number,
  options: RollupTransactionOptions,
): Promise<boolean> {
  if (options.statementTimeoutMs !== undefined) {
    if (!Number.isInteger(options.statementTimeoutMs) || options.statementTimeoutMs < 0)
      throw new Error(`statementTimeoutMs must be a whole number of ms (got ${options.statementTimeoutMs})`);
    await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${options.statementTimeoutMs}`);
  }
  if (options.skipWhenBusy) {
    const [row] = await tx.$queryRaw<{ taken: boolean }[]>`SELECT pg_try_advisory_xact_lock(${lockId}::int8) AS taken`;
    return row?.taken === true;
  }
  // Wait for a roll-up in progress rather than fail a metrics read at the console's short lock_timeout; statement_timeout still bounds the wait.
  await tx.$executeRaw`SET LOCAL lock_timeout = 0`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${lockId}::int8)`;
  return true;
}
