import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startDemoWorld } from "@/lib/demo/demo-world";
import { generateDemoHistory } from "@/lib/demo/traffic/generate-demo-history";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

const MINUTE = 60_000;

// A small history written twice, each into a fresh database of its own (the counts are whole-table
// counts): the same seed and end must leave the same table behind, with every state and event in it.
describe("the demo history", () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  const end = new Date();

  async function writeHistory() {
    const database = await createTestDatabase();
    databases.push(database);
    const pool = new pg.Pool({ connectionString: database.url, max: 20 });
    const world = await startDemoWorld({ db: pool });
    try {
      const counts = await generateDemoHistory({
        databaseUrl: database.url,
        processorUrl: world.processor.url,
        carrierUrl: world.carrier.url,
        seed: 7,
        hours: 3,
        end,
        callsPerHour: 120,
      });
      const q = async (sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows;
      const sql = {
        rows: await q(`SELECT tool, status, count(*)::int AS n FROM idempotency GROUP BY 1, 2 ORDER BY 1, 2`),
        events: await q(`SELECT tool, kind, count(*)::int AS n FROM idempotency_event GROUP BY 1, 2 ORDER BY 1, 2`),
        stuck: await q(
          `SELECT key FROM idempotency WHERE status = 'in_progress' AND created_at < $1 AND tool = 'charge_card' ORDER BY key`,
          [new Date(end.getTime() - 5 * MINUTE)],
        ),
        recent: (
          await q(`SELECT count(*)::int AS n FROM idempotency WHERE status = 'in_progress' AND created_at >= $1`, [
            new Date(end.getTime() - 5 * MINUTE),
          ])
        )[0]?.n as number,
      };
      // What the processor says about each stuck charge: it took some, it never saw others.
      const verdicts: Record<string, number> = {};
      for (const { key } of sql.stuck as { key: string }[]) {
        const response = await fetch(`${world.processor.url}/references/${key}`);
        const verdict = response.status === 404 ? "not_found" : ((await response.json()) as { status: string }).status;
        verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
      }
      return {
        counts: { ...counts, durationMs: 0 },
        sql,
        verdicts,
        processor: world.processor.stats().sideEffects,
        carrier: world.carrier.stats().sideEffects,
      };
    } finally {
      await world.stop();
      await pool.end();
    }
  }

  it("is deterministic for a seed and has rows in every state and events of every kind", async () => {
    const first = await writeHistory();
    const second = await writeHistory();
    expect(second.counts).toEqual(first.counts);
    expect(second.sql.rows).toEqual(first.sql.rows);
    expect(second.sql.events).toEqual(first.sql.events);
    expect(second.sql.recent).toBe(first.sql.recent);
    expect(second.verdicts).toEqual(first.verdicts);
    expect(second.processor).toBe(first.processor);
    expect(second.carrier).toBe(first.carrier);

    const { counts, sql, verdicts } = first;
    expect(counts.calls).toBeGreaterThan(300);
    expect(counts.protocolErrors).toBe(0);
    const rows = (tool: string, status: string) =>
      (sql.rows as { tool: string; status: string; n: number }[]).find((r) => r.tool === tool && r.status === status)
        ?.n ?? 0;
    expect(rows("charge_card", "completed")).toBeGreaterThan(0);
    expect(rows("charge_card", "in_progress")).toBeGreaterThan(0);
    expect(rows("send_receipt_email", "completed")).toBeGreaterThan(0);
    expect((sql.rows as { tool: string }[]).some((r) => r.tool === "create_shipment")).toBe(false);
    // Stuck: both kinds an operator meets, and a few claims still young.
    expect(verdicts.succeeded).toBeGreaterThan(0);
    expect(verdicts.not_found).toBeGreaterThan(0);
    expect(sql.recent).toBeGreaterThanOrEqual(3);
    const kinds = new Set((sql.events as { kind: string }[]).map((e) => e.kind));
    expect([...kinds].sort()).toEqual(["in_flight_rejected", "outcome_unknown", "replay_served"]);
    // Duplicate shipments: the carrier made more shipments than create_shipment was "performed".
    expect(first.carrier).toBeGreaterThan(0);
    expect(counts.callsByTool.create_shipment?.performed).toBeGreaterThan(0);
  });
});
