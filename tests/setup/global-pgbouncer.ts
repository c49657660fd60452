import { writeFileSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { applyPoolerLimits, startPgBouncer } from "../helpers/pgbouncer";
import { createTestDatabase } from "../helpers/test-database";

declare module "vitest" {
  export interface ProvidedContext {
    /** The same database as databaseUrl, reached directly (for what must not pass the pooler). */
    primaryDatabaseUrl: string;
  }
}

/**
 * The API integration files again, with every connection — the console's and the tests' own — going
 * through PgBouncer in transaction mode: `databaseUrl` is PgBouncer's. Migrations ran directly
 * (they hold a session lock); the console's limits are the role's, as a pooled deployment sets them.
 * At the end, what PgBouncer saw: client connections it served against server connections it opened.
 */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase();
  await applyPoolerLimits(database.url);
  const bouncer = await startPgBouncer(database.url);
  project.provide("databaseUrl", bouncer.urlFor(database.url));
  project.provide("primaryDatabaseUrl", database.url);
  project.provide("databaseKind", database.kind);
  project.provide("baseUrl", "");
  return async () => {
    const dbName = new URL(database.url).pathname.slice(1);
    const stats = (await bouncer.show("STATS")).find((s) => s.database === dbName);
    // Every client login and every server connection PgBouncer opened, from its log (log_connections is on by default).
    const lines = bouncer
      .log()
      .split("\n")
      .filter((line) => line.includes(`${dbName}/`));
    const figures = {
      clientLogins: lines.filter((line) => line.includes("login attempt")).length,
      serverConnectionsOpened: lines.filter((line) => line.includes("new connection to server")).length,
      transactions: Number(stats?.total_xact_count ?? 0),
      queries: Number(stats?.total_query_count ?? 0),
      waitMicroseconds: Number(stats?.total_wait_time ?? 0),
    };
    console.log(`pgbouncer (transaction mode, pool of 4): ${JSON.stringify(figures)}`);
    if (process.env.IDEM_PGBOUNCER_REPORT) writeFileSync(process.env.IDEM_PGBOUNCER_REPORT, JSON.stringify(figures));
    await bouncer.stop();
    await database.drop();
  };
}
