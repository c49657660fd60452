import { randomBytes } from "node:crypto";
import pg from "pg";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";

export type TestDatabase = { url: string; kind: "postgres" | "embedded"; drop(): Promise<void> };

const DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres";

/**
 * A fresh, empty database for one test run: created on the PostgreSQL server that
 * DATABASE_URL (or TEST_DATABASE_URL) names, dropped afterwards. Without a reachable server,
 * and outside CI, the run uses an in-memory embedded database and says so.
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? DEFAULT_SERVER;
  const admin = new pg.Client({ connectionString: server, connectionTimeoutMillis: 3_000 });
  let database: TestDatabase;
  try {
    await admin.connect();
  } catch (error) {
    if (process.env.CI) throw new Error(`CI needs PostgreSQL at ${server}: ${(error as Error).message}`);
    console.warn(`PostgreSQL is not reachable at ${server}: this run uses the embedded database (PGlite) instead.`);
    const embedded = await startEmbeddedDatabase({ inMemory: true, port: 0 });
    database = { url: embedded.url, kind: "embedded", drop: () => embedded.stop() };
    if (options.migrate !== false) await migrate(database.url);
    return database;
  }
  const name = `idem_test_${Date.now()}_${randomBytes(3).toString("hex")}`;
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  database = {
    url: url.toString(),
    kind: "postgres",
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      try {
        // pg-pool's end() resolves before its clients' sockets close: a FORCE that ends one of those
        // backends reaches its client as an error with no listener left (an unhandled error in the run).
        // Give closing connections a second; a test that leaves one open still has it ended.
        for (let waited = 0; waited < 1_000; waited += 50) {
          const { rows } = await client.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
            [name],
          );
          if (rows[0]!.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
  if (options.migrate !== false) await migrate(database.url);
  return database;
}
