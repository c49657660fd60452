import "server-only";
import { databaseFaultOf, describeDatabaseError } from "@/lib/db/describe-error";
import type { Db } from "@/lib/db/prisma";
import { rollUpSettled } from "./roll-up-settled";

/** A background round has no request waiting on it: an hour at 100 M claims a day takes ~17 s. */
export const BACKGROUND_ROLLUP_STATEMENT_TIMEOUT_MS = 10 * 60_000;

export type BackgroundRollup = {
  /** Ends the timer; waits for a round in progress. */
  stop(): Promise<void>;
  /** Rounds finished so far (each may have had nothing to do). */
  rounds(): number;
};

/**
 * Rolls up closed hours and settled minutes every `intervalMs` in the server process, outside any
 * request, so reads only read (roll-up-settled.ts, rollUpBeforeRead). Every instance runs one:
 * a round that finds another instance's roll-up holding the lock skips it (the next round finds
 * the work done), so N instances cost one roll-up, not N queued behind each other. A failing round
 * (the database restarting) is logged once until a round succeeds again, and retried on the timer.
 */
export function startBackgroundRollup(
  db: () => Db,
  intervalMs: number,
  log: (line: string) => void = (line) => console.error(line),
  clock: () => Date = () => new Date(),
  /** More work each round after the roll-up, in the same error handling (the duplicate scan). */
  alsoEachRound?: (db: Db, now: Date) => Promise<unknown>,
  /** Each round's wall-clock span, epoch ms, when it ends (the writers bench lines its slowest calls up with them). */
  onRound?: (span: { startedAt: number; endedAt: number }) => void,
): BackgroundRollup {
  let rounds = 0;
  let failing = false;
  let current: Promise<void> | null = null;
  const round = async () => {
    const startedAt = Date.now();
    try {
      await rollUpSettled(db(), clock(), {
        statementTimeoutMs: BACKGROUND_ROLLUP_STATEMENT_TIMEOUT_MS,
        skipWhenBusy: true,
      });
      await alsoEachRound?.(db(), clock());
      if (failing) log("metrics roll-up: working again");
      failing = false;
    } catch (error) {
      if (!failing) log(`metrics roll-up failed (retrying every ${intervalMs / 1000} s): ${reasonOf(error)}`);
      failing = true;
    } finally {
      rounds += 1;
      onRound?.({ startedAt, endedAt: Date.now() });
    }
  };
  const tick = () => {
    if (current) return; // a long round (a catch-up) is not overlapped by the next
    current = round().finally(() => (current = null));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref(); // never what keeps a process alive
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
    rounds: () => rounds,
  };
}

/**
 * One line that says why: Prisma's messages start with a newline (the first line alone was empty when
 * the database refused connections), so a database fault is described, anything else collapsed to a line.
 */
function reasonOf(error: unknown): string {
  if (databaseFaultOf(error)) return describeDatabaseError(error);
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  return message || (error instanceof Error ? error.name : "no reason given");
}
