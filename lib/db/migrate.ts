import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { UserError } from "@/lib/errors/user-error";
import { behindTransactionPooler } from "@/lib/db/pooler";

/**
 * Applies prisma/migrations/<name>/migration.sql offline (Prisma's own CLI needs a schema-engine
 * binary it cannot download here). It writes Prisma's `_prisma_migrations` table the same way,
 * so `prisma migrate deploy` on a machine that has the binary sees the same history.
 */
export type Migration = { name: string; sql: string; checksum: string };
export type MigrationReport = { applied: string[]; alreadyApplied: string[] };

export const DEFAULT_MIGRATIONS_DIR = path.resolve("prisma/migrations");

// Any constant shared by every runner: two `migrate` runs at once take turns.
const MIGRATION_LOCK_ID = 7_2707_369;

export function readMigrations(dir = DEFAULT_MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((name) => statSync(path.join(dir, name)).isDirectory())
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const INSUFFICIENT_PRIVILEGE = "42501";

export async function migrate(
  url: string,
  options: { dir?: string; onApplied?: (name: string, ms: number) => void } = {},
): Promise<MigrationReport> {
  if (behindTransactionPooler(url))
    throw new UserError(
      "Migrations hold a session advisory lock, which a transaction pooler (pgbouncer=true) would hand to another client's transaction: set DATABASE_MIGRATE_URL to a direct connection to PostgreSQL.",
      1,
    );
  const migrations = readMigrations(options.dir);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    // Only when missing: a least-privilege role may read the history but not create in the schema.
    const { rows: history } = await client.query<{ exists: boolean }>(
      `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`,
    );
    if (!history[0]?.exists) await client.query(PRISMA_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const done = new Map(rows.filter((r) => r.finished_at).map((r) => [r.migration_name, r.checksum]));
    const unfinished = rows.find((r) => !r.finished_at);
    if (unfinished) {
      throw new UserError(
        `Migration ${unfinished.migration_name} was started earlier and never finished. Inspect the database, then mark it rolled back in _prisma_migrations before retrying.`,
        1,
      );
    }
    const report: MigrationReport = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const applied = done.get(migration.name);
      if (applied !== undefined) {
        if (applied !== migration.checksum) {
          throw new UserError(
            `Migration ${migration.name} was edited after it was applied (checksum differs). Restore the file and add a new migration instead.`,
            1,
          );
        }
        report.alreadyApplied.push(migration.name);
        continue;
      }
      const started = Date.now();
      await applyOne(client, migration);
      report.applied.push(migration.name);
      options.onApplied?.(migration.name, Date.now() - started);
    }
    return report;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => {});
    await client.end();
  }
}

// Each migration and its history row commit together, or neither does.
async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    if ((error as { code?: string }).code === INSUFFICIENT_PRIVILEGE) {
      throw new UserError(
        `Migration ${migration.name} needs the schema's owner: this role may not change the schema (nothing was applied). Set DATABASE_MIGRATE_URL to the owner's URL.`,
        1,
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new UserError(`Migration ${migration.name} failed and was rolled back: ${message}`, 1);
  }
}

// Prisma's own definition of its history table.
const PRISMA_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;
