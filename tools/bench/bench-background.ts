import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import { DEFAULT_ROLLUP_EVERY_MS } from "@/lib/config/schema";
import { CONSOLE_APPLICATION_NAME } from "@/lib/db/application-name";
import { createPrismaClient } from "@/lib/db/prisma";
import { startBackgroundRollup, type BackgroundRollup } from "@/lib/metrics/background-rollup";
import { scanInRound } from "@/lib/duplicates/scan-in-round";
import type { RoundSpan } from "./tail-by-rounds";

export type BenchBackground = {
  /** Starts the rounds (the first at once, then every 15 s); a no-op while they run. */
  start(): void;
  /** Stops them, waiting for a round in progress. */
  stop(): Promise<void>;
  /** Rounds finished since the last start. */
  rounds(): number;
  /** Rounds finished in all, over every start. */
  total(): number;
  /** Every finished round's span, over every start (epoch ms; the roll-up then the scan). */
  spans(): RoundSpan[];
  close(): Promise<void>;
};

/**
 * The console server's background round — the metrics roll-up, then the duplicate scan
 * (lib/startup/background-work.ts) — run by the bench instead of the server (started with
 * `rollupEvery: "off"`), so a phase can go without it and the writers' tail be compared. Its
 * connections are named as the console's: the isolated placement moves them to the console's CPU,
 * and the lock check watches them.
 */
export function benchBackground(url: string, config: IdemConfig, log: (line: string) => void): BenchBackground {
  // With the console's own bound on parallel workers (lib/db/client.ts), as the server's round has.
  const db = createPrismaClient(url, 2, undefined, CONSOLE_APPLICATION_NAME, config.database.parallelWorkers);
  let running: BackgroundRollup | null = null;
  let earlier = 0;
  const spans: RoundSpan[] = [];
  let scanStartedAt: number | null = null;
  return {
    start() {
      running ??= startBackgroundRollup(
        () => db,
        DEFAULT_ROLLUP_EVERY_MS,
        log,
        undefined,
        (round, now) => {
          scanStartedAt = Date.now();
          return scanInRound(round, config, now);
        },
        ({ startedAt, endedAt }) => {
          // A round whose roll-up failed never reached the scan: all of it was the roll-up.
          const scan = scanStartedAt !== null && scanStartedAt >= startedAt ? scanStartedAt : null;
          spans.push({ startedAt, scanStartedAt: scan, endedAt });
          scanStartedAt = null;
        },
      );
    },
    async stop() {
      await running?.stop();
      earlier += running?.rounds() ?? 0;
      running = null;
    },
    rounds: () => running?.rounds() ?? 0,
    total: () => earlier + (running?.rounds() ?? 0),
    spans: () => [...spans],
    async close() {
      await running?.stop();
      await db.$disconnect();
    },
  };
}
