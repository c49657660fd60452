import { mkdtempSync, mkdirSync, writeFileSync, cpSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { migrate, readMigrations } from "@/lib/db/migrate";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

const created: TestDatabase[] = [];
afterEach(async () => {
  while (created.length) await created.pop()!.drop();
});

async function freshDatabase() {
  const database = await createTestDatabase({ migrate: false });
  created.push(database);
  return database;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

function copyMigrations(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "idem-migrations-"));
  cpSync("prisma/migrations", dir, { recursive: true });
  return dir;
}

describe("migrate", () => {
  it("applies every migration once; a second run changes nothing", async () => {
    const { url } = await freshDatabase();
    const first = await migrate(url);
    expect(first.applied).toEqual(readMigrations().map((m) => m.name));
    const history = await query(url, `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"`);

    const second = await migrate(url);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toEqual(first.applied);
    expect(await query(url, `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations"`)).toEqual(history);
  });

  it('creates the contract table with key COLLATE "C" as its primary key', async () => {
    const { url } = await freshDatabase();
    await migrate(url);
    const [column] = await query<{ collation_name: string }>(
      url,
      `SELECT collation_name FROM information_schema.columns WHERE table_name = 'idempotency' AND column_name = 'key'`,
    );
    expect(column?.collation_name).toBe("C");
    const indexes = await query<{ indexname: string; indexdef: string }>(
      url,
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'idempotency'`,
    );
    expect(indexes.map((i) => i.indexname)).toContain("idempotency_pkey");
    expect(indexes.find((i) => i.indexname === "idempotency_not_completed_created_at_idx")?.indexdef).toContain(
      "WHERE (status <> 'completed'::text)",
    );
  });

  it('adopts a table the reference writers created: optional columns added, key collated "C"', async () => {
    const { url } = await freshDatabase();
    await query(
      url,
      `CREATE TABLE idempotency (key text COLLATE "POSIX" PRIMARY KEY, tenant text NOT NULL, status text NOT NULL, response jsonb, created_at timestamptz NOT NULL DEFAULT now())`,
    );
    await query(url, `INSERT INTO idempotency (key, tenant, status) VALUES ('k1', 't', 'completed')`);
    await migrate(url);
    const rows = await query<{ key: string; subject: string | null; tool: string | null }>(
      url,
      `SELECT key, subject, tool, updated_at FROM idempotency`,
    );
    expect(rows).toEqual([{ key: "k1", subject: null, tool: null, updated_at: null }]);
    const [column] = await query<{ collation_name: string }>(
      url,
      `SELECT collation_name FROM information_schema.columns WHERE table_name = 'idempotency' AND column_name = 'key'`,
    );
    expect(column?.collation_name).toBe("C"); // adopted tables get the collation the ref look-up needs
  });

  it("moves rolled-up latency rows into the hourly rows' histogram column, losing none", async () => {
    const { url } = await freshDatabase();
    const dir = copyMigrations();
    const later = readMigrations(dir).filter((m) => m.name >= "20261217000000");
    const held = mkdtempSync(path.join(tmpdir(), "idem-migrations-later-"));
    for (const m of later) cpSync(path.join(dir, m.name), path.join(held, m.name), { recursive: true, force: true });
    for (const m of later) rmSync(path.join(dir, m.name), { recursive: true });
    await migrate(url, { dir });
    await query(
      url,
      `INSERT INTO metrics_hourly (hour, tenant, tool, completed) VALUES ('2030-01-01T10:00Z', 'acme', 'charge_card', 5), ('2030-01-01T10:00Z', 'acme', '', 1)`,
    );
    await query(
      url,
      `INSERT INTO metrics_hourly_latency (hour, tenant, tool, bucket, completions) VALUES
      ('2030-01-01T10:00Z', 'acme', 'charge_card', 29, 3), ('2030-01-01T10:00Z', 'acme', 'charge_card', 40, 2), ('2030-01-01T10:00Z', 'acme', '', 0, 1)`,
    );
    for (const m of later) cpSync(path.join(held, m.name), path.join(dir, m.name), { recursive: true });
    await migrate(url, { dir });
    const rows = await query<{ tool: string; latency: unknown }>(
      url,
      `SELECT tool, latency FROM metrics_hourly ORDER BY tool`,
    );
    expect(rows).toEqual([
      { tool: "", latency: { "0": 1 } },
      { tool: "charge_card", latency: { "29": 3, "40": 2 } },
    ]);
    expect(await query(url, `SELECT to_regclass('metrics_hourly_latency') AS t`)).toEqual([{ t: null }]);
  });

  it("stops at a failing migration, names it, and leaves nothing of it behind", async () => {
    const { url } = await freshDatabase();
    const dir = copyMigrations();
    mkdirSync(path.join(dir, "29990101000000_broken"));
    writeFileSync(
      path.join(dir, "29990101000000_broken", "migration.sql"),
      "CREATE TABLE half_done (id int);\nSELECT no_such_function();\n",
    );
    await expect(migrate(url, { dir })).rejects.toThrow(
      /Migration 29990101000000_broken failed and was rolled back: .*no_such_function/,
    );
    expect(await query(url, `SELECT to_regclass('half_done') AS t`)).toEqual([{ t: null }]);
    const names = (await query<{ migration_name: string }>(url, `SELECT migration_name FROM "_prisma_migrations"`)).map(
      (r) => r.migration_name,
    );
    expect(names).not.toContain("29990101000000_broken");
    expect(names).toContain(readMigrations()[0]!.name); // the good ones before it stay applied
  });

  it("refuses a migration edited after it was applied", async () => {
    const { url } = await freshDatabase();
    const dir = copyMigrations();
    await migrate(url, { dir });
    const first = readMigrations(dir)[0]!;
    writeFileSync(path.join(dir, first.name, "migration.sql"), `${first.sql}\n-- edited\n`);
    await expect(migrate(url, { dir })).rejects.toThrow(`Migration ${first.name} was edited after it was applied`);
  });

  it("works on the embedded database (PGlite), twice", async () => {
    const embedded = await startEmbeddedDatabase({ inMemory: true, port: 0 });
    try {
      expect((await migrate(embedded.url)).applied.length).toBeGreaterThan(0);
      expect((await migrate(embedded.url)).applied).toEqual([]);
      const [row] = await query<{ n: string }>(embedded.url, `SELECT count(*) AS n FROM "_prisma_migrations"`);
      expect(Number(row?.n)).toBe(readMigrations().length);
    } finally {
      await embedded.stop();
    }
  }, 120_000); // PGlite boots a whole PostgreSQL in WASM: slow on two busy cores
});
