import "server-only";
import type { Db } from "@/lib/db/prisma";
import { hoursWithoutSlices, rollUpClosedMinutes, type MinuteRollupResult } from "./minute-rollup";
import { rollUpClosedHours, type RollupResult } from "./rollup";

export type SettledRollupResult = { hours: RollupResult; minutes: MinuteRollupResult };

/**
 * Closed hours first, then settled minutes: pruning a minute slice needs its hour rolled up. What
 * `idem rollup` and the background roller (background-rollup.ts) run.
 */
export async function rollUpSettled(
  db: Db,
  now: Date,
  options: Parameters<typeof rollUpClosedHours>[2] = {},
): Promise<SettledRollupResult> {
  const hours = await rollUpClosedHours(db, now, options);
  const minutes = await rollUpClosedMinutes(db, now, options);
  return { hours, minutes };
}

/**
 * What a read (metrics, the tools evidence) rolls up before it reads: the settled minutes (normally
 * one minute's rows, or none), then only the closed hours that no minute slices cover — hours from
 * a pause of over an hour in every roll-up, or written by a backfill. An hour its slices cover is
 * read from them, provisional like the open hour, until the background roller or `idem rollup`
 * counts it from the base tables (861 ms at 10 M rows; ~17 s an hour at 100 M claims a day, past
 * a request's 5 s limit): in normal operation that never happens on a request.
 */
export async function rollUpBeforeRead(db: Db, now: Date): Promise<SettledRollupResult> {
  const minutes = await rollUpClosedMinutes(db, now);
  const hours = await rollUpClosedHours(db, now, { only: (pending) => hoursWithoutSlices(db, pending) });
  return { hours, minutes };
}
