import { execFileSync } from "node:child_process";
import path from "node:path";
import pg from "pg";

const SCRIPT = path.resolve("tests/setup/start-replica.sh");

/** Any constant: the replica tests that pause replay take turns (a paused replica is every file's). */
const PAUSE_LOCK_ID = 19_0001;
const REPLAY_DEADLINE_MS = 60_000;

export type TestReplica = {
  port: number;
  /** The same database on the replica: `postgresql://…:5432/idem_test_x` → `…:<port>/idem_test_x`. */
  urlOf(primaryUrl: string): string;
};

/**
 * The streaming replica of the test server (tests/setup/start-replica.sh): `.ci/run` starts it
 * before `npm test`; on a machine where none runs yet, this starts it (about 10 s, once).
 */
export function startTestReplica(primaryUrl: string): TestReplica {
  const out = execFileSync("bash", [SCRIPT], {
    env: { ...process.env, DATABASE_URL: primaryUrl },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = Number(out.trim().split("\n").at(-1));
  if (!Number.isInteger(port) || port <= 0) throw new Error(`start-replica.sh printed no port:\n${out}`);
  return {
    port,
    urlOf(url) {
      const replica = new URL(url);
      replica.port = String(port);
      return replica.toString();
    },
  };
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Waits until the replica has replayed everything the primary had written when called (a new database, a fixture). */
export async function waitForReplay(primaryUrl: string, replicaUrl: string): Promise<void> {
  const lsn = await withClient(
    primaryUrl,
    async (c) => (await c.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]!.lsn,
  );
  // The database itself may not exist on the replica yet: ask its `postgres` database.
  const server = new URL(replicaUrl);
  server.pathname = "/postgres";
  const deadline = Date.now() + REPLAY_DEADLINE_MS;
  await withClient(server.toString(), async (c) => {
    for (;;) {
      const { rows } = await c.query<{ done: boolean }>("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done", [lsn]);
      if (rows[0]?.done) return;
      if (Date.now() > deadline) throw new Error(`the replica did not replay ${lsn} within ${REPLAY_DEADLINE_MS} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
}

/**
 * Runs `body` with the replica's replay paused (pg_wal_replay_pause()): it keeps receiving WAL and
 * answering reads, of the past. Resumed after, whatever happens; one paused section at a time
 * across test files (an advisory lock on the primary).
 */
export async function whileReplayPaused<T>(primaryUrl: string, replicaUrl: string, body: () => Promise<T>): Promise<T> {
  return withClient(primaryUrl, async (lock) => {
    await lock.query("SELECT pg_advisory_lock($1)", [PAUSE_LOCK_ID]);
    try {
      return await withClient(replicaUrl, async (replica) => {
        await replica.query("SELECT pg_wal_replay_pause()");
        try {
          // pg_wal_replay_pause() requests the pause; wait until replay has actually stopped.
          for (;;) {
            const { rows } = await replica.query<{ state: string }>("SELECT pg_get_wal_replay_pause_state() AS state");
            if (rows[0]?.state === "paused") break;
            await new Promise((r) => setTimeout(r, 20));
          }
          return await body();
        } finally {
          await replica.query("SELECT pg_wal_replay_resume()");
        }
      });
    } finally {
      await lock.query("SELECT pg_advisory_unlock($1)", [PAUSE_LOCK_ID]).catch(() => {});
    }
  });
}

/** The console's connections to `database` on the server `url` names: the last statement each ran, and when. */
export async function consoleSessionsOn(url: string, database: string) {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ application_name: string; query: string; state_change: Date }>(
      `SELECT application_name, query, state_change FROM pg_stat_activity
        WHERE datname = $1 AND application_name LIKE 'idem-console%'`,
      [database],
    );
    return rows;
  });
}
