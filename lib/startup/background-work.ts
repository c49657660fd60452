import "server-only";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { startBackgroundRollup } from "@/lib/metrics/background-rollup";
import { scanInRound } from "@/lib/duplicates/scan-in-round";

/**
 * What a console server does outside requests (config `metrics.rollupEvery`): the metrics roll-up,
 * then the scan for duplicates that got through, in the same round.
 */
export function startServerBackgroundWork(): void {
  const every = getConfig().metrics.rollupEvery;
  if (every === "off") return;
  startBackgroundRollup(getDb, every, undefined, undefined, (db, now) => scanInRound(db, getConfig(), now));
}
