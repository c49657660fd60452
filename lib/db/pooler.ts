import pg from "pg";
import type { DatabaseTimeouts } from "@/lib/db/timeouts";

/**
 * A database URL that reaches PostgreSQL through a transaction-mode pooler (PgBouncer) says so with
 * `pgbouncer=true`, the parameter Prisma documents for the same case. Behind one, a server connection
 * is ours for one transaction only, which changes two things here:
 * - statement_timeout and lock_timeout cannot travel in the startup packet (PgBouncer refuses unknown
 *   startup parameters, and ignoring them would silently lift the limits), and a session `SET` would
 *   land on whichever server connection ran it and stay there for the next client. The limits live on
 *   the role instead — `ALTER ROLE <console role> IN DATABASE <db> SET statement_timeout = …` — which
 *   PostgreSQL applies to every backend it starts for that role, so every server connection PgBouncer
 *   opens carries them at no cost per request; poolerLimitsProblem() refuses to serve without them.
 *   (Transaction-local overrides — `SET LOCAL`, `set_config(…, true)` — still work, and are the only kind
 *   the request path may use: tests/unit/pooler-safe-sql.test.ts.)
 * - migrations take a session advisory lock, which needs a connection of their own:
 *   DATABASE_MIGRATE_URL must reach PostgreSQL directly (lib/db/migrate.ts refuses otherwise).
 */
export function behindTransactionPooler(url: string): boolean {
  try {
    return new URL(url).searchParams.get("pgbouncer") === "true";
  } catch {
    return false;
  }
}

/** The role-level statement that gives the console's role its limits behind a pooler. */
export function poolerLimitsStatement(timeouts: DatabaseTimeouts, role = "<console role>", database = "<database>") {
  return `ALTER ROLE ${role} IN DATABASE ${database} SET statement_timeout = '${timeouts.statementMs ?? 0}ms'; ALTER ROLE ${role} IN DATABASE ${database} SET lock_timeout = '${timeouts.lockMs ?? 0}ms'`;
}

/**
 * Null when a connection through `url` runs with limits no looser than `timeouts` (zero means none
 * in PostgreSQL, so zero is looser than anything); otherwise one line saying what to run.
 */
export async function poolerLimitsProblem(url: string, timeouts: DatabaseTimeouts): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectMs });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; ms: string; role: string; database: string }>(
      `SELECT name, setting AS ms, current_user AS role, current_database() AS database
         FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout')`,
    );
    const actual = (name: string) => Number(rows.find((r) => r.name === name)?.ms ?? 0);
    const loose = (name: string, wanted?: number) =>
      wanted !== undefined && (actual(name) === 0 || actual(name) > wanted);
    if (!loose("statement_timeout", timeouts.statementMs) && !loose("lock_timeout", timeouts.lockMs)) return null;
    const { role, database } = rows[0]!;
    return (
      `DATABASE_URL goes through a transaction pooler (pgbouncer=true), where the console cannot set its own limits, ` +
      `and the server runs ${role}'s statements with statement_timeout ${actual("statement_timeout")} ms and lock_timeout ${actual("lock_timeout")} ms ` +
      `(the console's are ${timeouts.statementMs ?? 0} and ${timeouts.lockMs ?? 0} ms). As the owner, run: ` +
      poolerLimitsStatement(timeouts, pg.escapeIdentifier(role), pg.escapeIdentifier(database))
    );
  } finally {
    await client.end();
  }
}
