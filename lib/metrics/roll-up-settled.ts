import "server-only";
import type { Db } from "@/lib/db/prisma";
import { rollUpClosedMinutes, type MinuteRollupResult } from "./minute-rollup";
import { rollUpClosedHours, type RollupResult } from "./rollup";

export type SettledRollupResult = { hours: RollupResult; minutes: MinuteRollupResult };

/** Closed hours first, then settled minutes: pruning a minute slice needs its hour rolled up. */
export async function rollUpSettled(
  db: Db,
  now: Date,
  options: Parameters<typeof rollUpClosedHours>[2] = {},
): Promise<SettledRollupResult> {
  const hours = await rollUpClosedHours(db, now, options);
  const minutes = await rollUpClosedMinutes(db, now);
  return { hours, minutes };
}
