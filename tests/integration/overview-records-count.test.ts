import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { getOverviewCounts, RECORDS_COUNT_CAP } from "@/lib/records/overview-counts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// The overview's "Records" figure: reltuples only while the statistics describe the table. A database
// of this file's own, autovacuum off for the table, so ANALYZE runs only when the test says so.
const admin: Actor = {
  kind: "system",
  id: "test-admin",
  name: "test-admin",
  displayName: "test",
  role: "admin",
  tenants: [],
};
const config = parseConfig(JSON.stringify({ tools: {} }));

describe("overview: the records count is exact, a lower bound, or an estimate from fresh statistics (real PostgreSQL)", () => {
  let database: TestDatabase;
  let client: pg.Client;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    db = createPrismaClient(database.url, 2);
    await client.query("ALTER TABLE idempotency SET (autovacuum_enabled = false)");
  });
  afterAll(async () => {
    await db?.$disconnect();
    await client?.end();
    await database?.drop();
  });

  const load = async (rows: number) => {
    await client.query(
      `INSERT INTO idempotency (key, tenant, tool, status) SELECT md5(random()::text || g), 'acme', 'charge_card', 'completed' FROM generate_series(1, $1) g`,
      [rows],
    );
    await client.query("SELECT pg_stat_force_next_flush()");
    await client.query("SELECT 1");
  };
  const truth = async () =>
    Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM idempotency")).rows[0]!.n);
  const records = async () => {
    const counts = await getOverviewCounts(db, admin, config, new Date());
    return { records: counts.records, estimate: counts.recordsIsEstimate, atLeast: counts.recordsAtLeast };
  };

  it("small, never analysed: exact", async () => {
    await load(5_000);
    expect(await records()).toEqual({ records: 5_000, estimate: false, atLeast: false });
  });

  it("large and analysed: the planner's estimate, within 2×", { timeout: 120_000 }, async () => {
    await load(100_000);
    await client.query("ANALYZE idempotency");
    const shown = await records();
    expect(shown.estimate).toBe(true);
    const actual = await truth();
    expect(shown.records).toBeGreaterThanOrEqual(actual / 2);
    expect(shown.records).toBeLessThanOrEqual(actual * 2);
  });

  it(
    "bulk-loaded since its ANALYZE: a lower bound, never reltuples' 105,000 for 255,000 rows",
    { timeout: 180_000 },
    async () => {
      await load(150_000);
      expect(await records()).toEqual({ records: RECORDS_COUNT_CAP, estimate: false, atLeast: true });
      expect(await truth()).toBe(255_000);
    },
  );
});
