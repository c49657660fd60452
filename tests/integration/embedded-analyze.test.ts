import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { getRecordFacets } from "@/lib/records/facet-counts";
import { EMPTY_FILTER } from "@/lib/records/list-filters";

// PGlite has no autovacuum: without the console's own ANALYZE, reltuples stays -1 and pg_stats empty,
// and every planner estimate is made from nothing (the records page once said completed ≈ 114 of 13,283).
const admin: Actor = {
  kind: "system",
  id: "test-admin",
  name: "test-admin",
  displayName: "test",
  role: "admin",
  tenants: [],
};
const config = parseConfig(JSON.stringify({ tools: {} }));

describe("the embedded database keeps its planner statistics", () => {
  let embedded: EmbeddedDatabase;
  let client: pg.Client;
  let db: Db;

  beforeAll(async () => {
    // No periodic pass during the test: each pass here is asked for.
    embedded = await startEmbeddedDatabase({ inMemory: true, port: 0, analyzeEveryMs: 3_600_000 });
    await migrate(embedded.url);
    client = new pg.Client({ connectionString: embedded.url });
    await client.connect();
    db = createPrismaClient(embedded.url, 2);
  }, 120_000);
  afterAll(async () => {
    await db?.$disconnect();
    await client?.end();
    await embedded?.stop();
  });

  const tableStats = async () =>
    (
      await client.query<{ reltuples: number; analyzed: boolean; columns: number }>(
        `SELECT c.reltuples::float8 AS reltuples, pg_stat_get_last_analyze_time(c.oid) IS NOT NULL AS analyzed,
                (SELECT count(*)::int FROM pg_stats WHERE tablename = 'idempotency' AND attname IN ('status', 'tool')) AS columns
         FROM pg_class c WHERE c.oid = 'idempotency'::regclass`,
      )
    ).rows[0]!;

  const insert = (rows: number, tool: string, status: string) =>
    client.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at)
       SELECT md5(random()::text || g), 'acme', $2, $3, now() - g * interval '1 second' FROM generate_series(1, $1) g`,
      [rows, tool, status],
    );

  it("analyses after migrations and after rows arrive: reltuples set, pg_stats present, the facets' estimate labelled", async () => {
    expect(await tableStats()).toMatchObject({ reltuples: -1, analyzed: false });
    expect(await embedded.analyze()).toContain("idempotency"); // what `serve` and `demo` run after migrating
    expect(await tableStats()).toMatchObject({ reltuples: 0, analyzed: true });

    await insert(9_000, "charge_card", "completed");
    await insert(3_000, "create_shipment", "completed");
    await insert(120, "charge_card", "in_progress");
    expect(await embedded.analyze()).toContain("idempotency"); // 12,120 changed rows since: stale
    expect(await tableStats()).toEqual({ reltuples: 12_120, analyzed: true, columns: 2 });
    expect(await embedded.analyze()).not.toContain("idempotency"); // nothing changed since: left alone

    const facets = await getRecordFacets(db, admin, EMPTY_FILTER, config, new Date());
    const completed = facets.status.entries.find((e) => e.value === "completed");
    expect(completed).toMatchObject({
      estimate: true,
      count: 12_000,
      basis: { tableRows: 12_120, modifiedSinceAnalyze: 0 },
    });
    expect(facets.status.entries.find((e) => e.value === "in_progress")).toMatchObject({
      count: 120,
      estimate: false,
      atLeast: false,
    });
    expect(Object.fromEntries(facets.tool.entries.map((e) => [e.value, e.count]))).toEqual({
      charge_card: 9_120,
      create_shipment: 3_000,
    });
  }, 120_000);

  it("a bulk load the statistics have not seen is counted, not estimated", async () => {
    await insert(40_000, "send_invoice", "in_progress");
    const facets = await getRecordFacets(db, admin, EMPTY_FILTER, config, new Date());
    expect(facets.status.entries.find((e) => e.value === "completed")).toEqual({
      value: "completed",
      count: 1_000,
      estimate: false,
      atLeast: true,
      basis: null,
    });
    expect(facets.tool.entries.some((e) => e.estimate)).toBe(false);
    expect(facets.tool.entries.map((e) => e.value)).toContain("send_invoice");
  }, 120_000);

  it("renews them by itself while it serves", async () => {
    const served = await startEmbeddedDatabase({ inMemory: true, port: 0, analyzeEveryMs: 200 });
    try {
      await migrate(served.url);
      const other = new pg.Client({ connectionString: served.url });
      await other.connect();
      try {
        await other.query(
          `INSERT INTO idempotency (key, tenant, status) SELECT md5(g::text), 'acme', 'completed' FROM generate_series(1, 500) g`,
        );
        const reltuples = async () =>
          (
            await other.query<{ r: number }>(
              "SELECT reltuples::float8 AS r FROM pg_class WHERE oid = 'idempotency'::regclass",
            )
          ).rows[0]!.r;
        await expect.poll(reltuples, { timeout: 30_000, interval: 100 }).toBe(500);
      } finally {
        await other.end();
      }
    } finally {
      await served.stop();
    }
  }, 120_000);
});
