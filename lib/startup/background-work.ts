import "server-only";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { startBackgroundRollup } from "@/lib/metrics/background-rollup";

/** What a console server does outside requests: the metrics roll-up (config `metrics.rollupEvery`). */
export function startServerBackgroundWork(): void {
  const every = getConfig().metrics.rollupEvery;
  if (every === "off") return;
  startBackgroundRollup(getDb, every);
}
