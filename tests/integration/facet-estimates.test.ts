import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { getRecordFacets, type Facet } from "@/lib/records/facet-counts";
import { EMPTY_FILTER, type RecordsFilter } from "@/lib/records/list-filters";
import { wholeTableEstimate } from "@/lib/records/planner-statistics";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// When the records facets may show a planner estimate, and that nothing they show is wrong by more
// than it says. A database of this file's own: the statistics are the whole table's, and ANALYZE
// runs only when the test says so (autovacuum is off for the table).
const config = parseConfig(JSON.stringify({ tools: {} }));
const NOW = new Date();
const admin: Actor = {
  kind: "system",
  id: "test-admin",
  name: "test-admin",
  displayName: "test",
  role: "admin",
  tenants: [],
};

describe("records facets: estimates only from fresh statistics, counts otherwise (real PostgreSQL)", () => {
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

  /** Appends rows; makes this session's activity counters visible to the others at once (they flush on idle otherwise). */
  async function load(rows: number, spec: { tenant: string; tool: string; status: string }): Promise<void> {
    await client.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at)
       SELECT md5(random()::text || g), $2, $3, $4, now() - g * interval '1 second' FROM generate_series(1, $1) g`,
      [rows, spec.tenant, spec.tool, spec.status],
    );
    await client.query("SELECT pg_stat_force_next_flush()");
    await client.query("SELECT 1"); // the flush happens when the previous statement's session goes idle
  }

  /** The true count of each value of a column under a filter, by SQL written here. */
  async function truth(
    column: "status" | "tool",
    where: string,
    values: unknown[] = [],
  ): Promise<Map<string | null, number>> {
    const { rows } = await client.query<{ value: string | null; n: string }>(
      `SELECT ${column} AS value, count(*) AS n FROM idempotency ${where} GROUP BY ${column}`,
      values,
    );
    return new Map(rows.map((r) => [r.value, Number(r.n)]));
  }

  /**
   * Every entry is exact, a lower bound no greater than the truth, or a labelled estimate within 2×
   * with its basis; a value with rows is missing only when the note says values may be missing.
   */
  function expectTruthful(facet: Facet, truths: Map<string | null, number>, label: string) {
    for (const entry of facet.entries) {
      const actual = truths.get(entry.value) ?? 0;
      const what = `${label}: ${String(entry.value)} shown ${entry.count} (estimate ${entry.estimate}, atLeast ${entry.atLeast}), truth ${actual}`;
      if (entry.estimate) {
        expect(entry.basis, what).not.toBeNull();
        expect(entry.count, what).toBeGreaterThanOrEqual(actual / 2);
        expect(entry.count, what).toBeLessThanOrEqual(actual * 2);
      } else {
        expect(entry.basis, what).toBeNull();
        if (entry.atLeast) expect(entry.count, what).toBeLessThanOrEqual(actual);
        else expect(entry.count, what).toBe(actual);
      }
    }
    const shown = new Set(facet.entries.map((e) => e.value));
    for (const [value, actual] of truths) {
      if (actual > 0 && !shown.has(value))
        expect(facet.note, `${label}: ${String(value)} (${actual} rows) not listed`).toMatch(/not listed/);
    }
  }

  async function facetsOf(filter: Partial<RecordsFilter> = {}) {
    return getRecordFacets(db, admin, { ...EMPTY_FILTER, ...filter }, config, NOW);
  }

  it("never analysed: no estimates; statuses and tools counted, exactly or as lower bounds, tool chips on the unfiltered view", async () => {
    await load(11_000, { tenant: "acme", tool: "charge_card", status: "completed" });
    await load(4_000, { tenant: "globex", tool: "create_shipment", status: "completed" });
    await load(300, { tenant: "acme", tool: "charge_card", status: "in_progress" });
    const { rows } = await client.query<{ reltuples: number }>(
      "SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'idempotency'::regclass",
    );
    expect(rows[0]?.reltuples).toBe(-1); // the state the embedded database was in before it ran ANALYZE

    const facets = await facetsOf();
    expect(facets.status.entries.some((e) => e.estimate) || facets.tool.entries.some((e) => e.estimate)).toBe(false);
    expectTruthful(facets.status, await truth("status", ""), "status");
    expectTruthful(facets.tool, await truth("tool", ""), "tool");
    expect(facets.status.entries.find((e) => e.value === "completed")).toEqual({
      value: "completed",
      count: 1_000,
      estimate: false,
      atLeast: true,
      basis: null,
    });
    expect(facets.status.entries.find((e) => e.value === "in_progress")).toMatchObject({ count: 300, atLeast: false });
    expect(facets.tool.entries.map((e) => e.value).sort()).toEqual(["charge_card", "create_shipment"]);
    expect(facets.status.note).toMatch(/counting stops after the newest 1,000 completed records/);
  });

  it("fresh statistics: the whole table's completed and tools are labelled estimates within 2×, with the figures they came from", async () => {
    await client.query("ANALYZE idempotency");
    const facets = await facetsOf();
    const completed = facets.status.entries.find((e) => e.value === "completed");
    expect(completed?.estimate).toBe(true);
    expect(completed?.basis).toMatchObject({ tableRows: 15_300, modifiedSinceAnalyze: 0 });
    expect(completed!.basis!.share).toBeCloseTo(15_000 / 15_300, 2);
    expect(Date.parse(completed!.basis!.analyzedAt)).toBeGreaterThan(NOW.getTime() - 60_000);
    expect(completed!.count).toBe(Math.round(completed!.basis!.filterRows * completed!.basis!.share));
    expect(facets.tool.entries.every((e) => e.estimate && e.basis !== null)).toBe(true);
    expectTruthful(facets.status, await truth("status", ""), "status");
    expectTruthful(facets.tool, await truth("tool", ""), "tool");
    expect(facets.status.note).toMatch(/^completed is a planner estimate from fresh statistics/);
  });

  it("a correlated filter (tenant × tool) is never estimated: the planner's independence would be off by far more than 2×", async () => {
    // globex writes only create_shipment: the planner's tenant share × tool share would give it charge_card rows.
    const facets = await facetsOf({ tenant: "globex" });
    expect(facets.tool.entries).toEqual([
      { value: "create_shipment", count: 4_000, estimate: false, atLeast: false, basis: null },
    ]);
    expect(facets.status.entries).toEqual([
      { value: "completed", count: 4_000, estimate: false, atLeast: false, basis: null },
    ]);
    // acme writes only charge_card, and has more rows than one count reads (the planner: tenant share × create_shipment's share).
    const acmeTools = await facetsOf({ tenant: "acme" });
    expectTruthful(acmeTools.tool, await truth("tool", "WHERE tenant = 'acme'"), "acme tools");
    expect(acmeTools.tool.entries).toEqual([
      { value: "charge_card", count: 1_000, estimate: false, atLeast: true, basis: null },
    ]);
    const acme = await facetsOf({ tenant: "acme", tool: "charge_card" });
    expectTruthful(acme.status, await truth("status", "WHERE tenant = 'acme' AND tool = 'charge_card'"), "acme status");
    expect(acme.status.entries.some((e) => e.estimate)).toBe(false);
    const completedOnly = await facetsOf({ status: "completed" });
    expectTruthful(completedOnly.tool, await truth("tool", "WHERE status = 'completed'"), "completed tools");
    expect(completedOnly.tool.entries.some((e) => e.estimate)).toBe(false);
  });

  it("after a bulk load the statistics no longer describe the table: counts and lower bounds, never an unlabelled wrong figure", async () => {
    // 60,000 open claims of a new tool: completed's share at ANALYZE (98 %) would now read ≈ 74,000 for 15,000 rows.
    await load(60_000, { tenant: "initech", tool: "send_invoice", status: "in_progress" });
    const facets = await facetsOf();
    const completed = facets.status.entries.find((e) => e.value === "completed");
    expect(completed).toEqual({ value: "completed", count: 1_000, estimate: false, atLeast: true, basis: null });
    expect(facets.status.entries.find((e) => e.value === "in_progress")).toMatchObject({ count: 500, atLeast: true });
    expectTruthful(facets.status, await truth("status", ""), "status");
    expectTruthful(facets.tool, await truth("tool", ""), "tool");
    expect(facets.tool.entries.some((e) => e.estimate)).toBe(false);
    expect(facets.tool.entries.find((e) => e.value === "send_invoice")).toMatchObject({ atLeast: true });

    // A small change since ANALYZE keeps the estimate: each changed row moves a count by at most one.
    await client.query("ANALYZE idempotency");
    await load(200, { tenant: "acme", tool: "charge_card", status: "completed" });
    const after = await facetsOf();
    expect(after.status.entries.find((e) => e.value === "completed")).toMatchObject({
      estimate: true,
      basis: { modifiedSinceAnalyze: 200 },
    });
    expectTruthful(after.status, await truth("status", ""), "status after ANALYZE");
    expectTruthful(after.tool, await truth("tool", ""), "tool after ANALYZE");
  });

  it("the planner's growth of the table counts as change even before a writer's counters reach pg_stat", () => {
    // A writer's backend flushes its counters when idle (up to a minute late); the planner sees the new pages at once.
    const stats = {
      tableRows: 15_300,
      analyzedAt: new Date(),
      modifiedSinceAnalyze: 0,
      common: { status: [], tool: [] },
    };
    expect(wholeTableEstimate(stats, 15_300, 0.98)?.count).toBe(14_994);
    expect(wholeTableEstimate(stats, 75_300, 0.98)).toBeNull();
    expect(
      wholeTableEstimate({ ...stats, modifiedSinceAnalyze: 3_748 }, 15_300, 0.98)?.basis.modifiedSinceAnalyze,
    ).toBe(3_748);
    expect(wholeTableEstimate({ ...stats, modifiedSinceAnalyze: 3_749 }, 15_300, 0.98)).toBeNull();
    expect(wholeTableEstimate({ ...stats, analyzedAt: null }, 15_300, 0.98)).toBeNull();
    expect(wholeTableEstimate({ ...stats, tableRows: -1 }, 15_300, 0.98)).toBeNull();
  });
});
