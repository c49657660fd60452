import type pg from "pg";

/** The backend id of a connection, for waitForLockWaiters. */
export async function backendPid(client: pg.PoolClient | pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  return rows[0]!.pid;
}

/**
 * Resolves once `count` backends are waiting on a lock that the backend `holder` holds, as
 * PostgreSQL itself reports it (pg_stat_activity.wait_event_type = 'Lock', pg_blocking_pids).
 * A race test holds a row in an open transaction, starts the racer, waits here, then commits or
 * rolls back: the racer is known to be blocked on the row, however slow the machine, instead of
 * hoping a sleep was long enough. Only backends blocked by `holder` count, so other test files
 * sharing the database do not. Gives up with an error saying what it saw after `giveUpMs`.
 */
export async function waitForLockWaiters(db: pg.Pool, holder: number, count = 1, giveUpMs = 20_000): Promise<void> {
  const deadline = Date.now() + giveUpMs;
  for (;;) {
    const { rows } = await db.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND $1::int = ANY (pg_blocking_pids(pid))`,
      [holder],
    );
    const waiting = rows[0]!.waiting;
    if (waiting >= count) return;
    if (Date.now() > deadline)
      throw new Error(
        `waitForLockWaiters: ${waiting} of ${count} backend(s) blocked by backend ${holder} after ${giveUpMs} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
