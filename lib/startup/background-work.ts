import "server-only";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { startBackgroundRollup } from "@/lib/metrics/background-rollup";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";

/**
 * What a console server does outside requests (config `metrics.rollupEvery`): the metrics roll-up,
 * then the scan for duplicates that got through, in the same round.
 */
export function startServerBackgroundWork(): void {
  const every = getConfig().metrics.rollupEvery;
  if (every === "off") return;
  startBackgroundRollup(getDb, every, undefined, undefined, (db, now) =>
    // Up to 10 s a round, so a first scan of 72 h (864 chunks) is done in a round or a few, not minutes.
    scanDuplicates(db, getConfig(), now, { skipWhenBusy: true, maxChunks: 2_000, budgetMs: 10_000 }),
  );
}
