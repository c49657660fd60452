import { argumentsJsonOf, deriveKey } from "idem-guard";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient } from "@/lib/db/prisma";
import { startDemoWorld } from "@/tools/demo/demo-world";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";
import { generateDemoHistory } from "@/tools/demo/traffic/generate-demo-history";
import { planHistory } from "@/tools/demo/traffic/plan-history";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

const MINUTE = 60_000;
const BUCKET_MS = 15 * MINUTE;
const DAY_MS = 24 * 60 * MINUTE;
const END_HOUR_MS = 22 * 60 * MINUTE;
const PLAN = { seed: 7, hours: 3, callsPerHour: 120 };

// Two claims of one operation (tenant, subject, tool, arguments hash) under two keys, less than the
// window apart: a duplicate that got through (docs/architecture.md#duplicates-that-got-through).
const DUPLICATE_PAIRS = `
  SELECT a.tenant, a.tool, a.status AS first_status, b.status AS second_status, b.key AS second_key,
         a.created_at AS first_at, b.created_at AS second_at
  FROM idempotency a JOIN idempotency b
    ON b.tenant = a.tenant AND b.subject = a.subject AND b.tool = a.tool AND b.arguments_sha256 = a.arguments_sha256
   AND b.key <> a.key AND b.created_at > a.created_at AND b.created_at < a.created_at + interval '15 minutes'
  WHERE a.tool <> 'send_receipt_email'
  ORDER BY b.created_at`;

// Each repeat the guard recorded, with its delay after the claim (lib/repeats/repeat-delay-band.ts).
const REPEAT_DELAYS = `
  SELECT e.client, e.tool, e.kind, extract(epoch FROM e.at - i.created_at)::float8 AS delay_s
  FROM idempotency_event e JOIN idempotency i USING (key)
  WHERE e.kind IN ('replay_served', 'in_flight_rejected')
  ORDER BY e.client, delay_s`;

type Pair = {
  tenant: string;
  tool: string;
  first_status: string;
  second_status: string;
  second_key: string;
  first_at: Date;
  second_at: Date;
};
type Repeat = { client: string; tool: string; kind: string; delay_s: number };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// A small history written twice, each into a fresh database of its own (the counts are whole-table
// counts): the same seed and end must leave the same table behind, with every state and event in it.
describe("the demo history", () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });
  // The demo's traffic follows the time of day (quietest at 03:00 UTC), and how many of a host's repeats
  // fit inside their first call's bucket with it: a history ending at 22:00 UTC on every run, whatever
  // the clock says, leaves the same counts behind (the second test's thresholds hold for it).
  const end = new Date(Math.floor((Date.now() - END_HOUR_MS) / DAY_MS) * DAY_MS + END_HOUR_MS);
  // The first history, for the second test's look at what a newcomer should find in it.
  let history: Awaited<ReturnType<typeof writeHistory>> | undefined;

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
        ...PLAN,
        end,
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
        pairs: (await q(DUPLICATE_PAIRS)) as Pair[],
        repeats: (await q(REPEAT_DELAYS)) as Repeat[],
        clients: await q(`SELECT client, count(*)::int AS n FROM idempotency_event GROUP BY 1 ORDER BY 1`),
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
        database,
        config: parseConfig(JSON.stringify(world.config)),
      };
    } finally {
      await world.stop();
      await pool.end();
    }
  }

  // Two histories, one after the other: past the node project's 30 s when the CI's other runs share the cores.
  it("is deterministic for a seed and has rows in every state and events of every kind", async () => {
    const first = await writeHistory();
    history = first;
    const second = await writeHistory();
    expect(second.counts).toEqual(first.counts);
    expect(second.sql.rows).toEqual(first.sql.rows);
    expect(second.sql.events).toEqual(first.sql.events);
    expect(second.sql.recent).toBe(first.sql.recent);
    expect(second.verdicts).toEqual(first.verdicts);
    expect(second.processor).toBe(first.processor);
    expect(second.carrier).toBe(first.carrier);
    // The same keys (not quite the same times: those carry the real milliseconds each call took).
    expect(second.sql.pairs.map((p) => p.second_key)).toEqual(first.sql.pairs.map((p) => p.second_key));
    expect(second.sql.clients).toEqual(first.sql.clients);

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
    expect([...kinds].sort()).toEqual(["arguments_mismatch", "in_flight_rejected", "outcome_unknown", "replay_served"]);
    // Duplicate shipments: the carrier made more shipments than create_shipment was "performed".
    expect(first.carrier).toBeGreaterThan(0);
    expect(counts.callsByTool.create_shipment?.performed).toBeGreaterThan(0);
  }, 120_000);

  it("has duplicates that got through, a business key reused with other arguments, and two hosts' retry habits", async () => {
    const { sql, counts, database, config } = history!;
    // A retry after a slow processor, just past a bucket edge: both claims executed, under two keys.
    expect(sql.pairs.length).toBeGreaterThanOrEqual(1);
    for (const pair of sql.pairs) {
      expect([pair.tool, pair.first_status, pair.second_status]).toEqual(["charge_card", "completed", "completed"]);
      const edge = Math.ceil(pair.first_at.getTime() / BUCKET_MS) * BUCKET_MS;
      expect(pair.second_at.getTime()).toBeGreaterThanOrEqual(edge);
      expect(pair.second_at.getTime() - pair.first_at.getTime()).toBeLessThan(MINUTE);
    }
    // The console's scanner finds the same pairs.
    const db = createPrismaClient(database.url, 2);
    try {
      // As a console that was scanning before the history began: the scan reads its 3 hours, not a first scan's 72.
      await db.$executeRaw`INSERT INTO duplicate_scan_state (id, scanned_through, scanned_at)
        SELECT 1, min(created_at), now() FROM idempotency`;
      const scan = await scanDuplicates(db, config, new Date(), { maxChunks: 2_000 });
      expect(scan.found).toBe(sql.pairs.length);
      const found = await db.$queryRaw<
        { second_key: string }[]
      >`SELECT second_key FROM duplicate_through ORDER BY second_at`;
      expect(found.map((r) => r.second_key)).toEqual(sql.pairs.map((p) => p.second_key));
      // They are the planned retries across an edge, keyed and hashed as the guard derives them.
      const planned = planHistory({ ...PLAN, end })
        .filter((scenario) => scenario.kind === "bucket_edge_retry")
        .flatMap((scenario) => scenario.steps.flat())
        .map((call) =>
          deriveKey({
            tenant: call.tenant,
            subject: call.subject,
            tool: call.tool,
            argumentsJson: argumentsJsonOf(call.args),
            at: call.at,
          }),
        );
      const claims = await db.$queryRaw<{ key: string; arguments_sha256: string }[]>`
        SELECT key, arguments_sha256 FROM idempotency WHERE key = ANY(${planned.map((k) => k.key)}) ORDER BY created_at`;
      expect(claims).toEqual(planned.map((k) => ({ key: k.key, arguments_sha256: k.argumentsSha256 })));
      expect(planned.filter((_, i) => i % 2 === 1).map((k) => k.key)).toEqual(sql.pairs.map((p) => p.second_key));
    } finally {
      await db.$disconnect();
    }

    // The receipt asked for again to another address: the charge id (the business key) with other arguments.
    const events = sql.events as { tool: string; kind: string; n: number }[];
    const mismatches = events.find((e) => e.tool === "send_receipt_email" && e.kind === "arguments_mismatch");
    expect(mismatches?.n).toBeGreaterThanOrEqual(1);
    expect(counts.callsByTool.send_receipt_email?.arguments_mismatch).toBe(mismatches?.n);

    // Two hosts, as their MCP handshakes name them: one retries within seconds, the other's model asks again minutes later.
    expect((sql.clients as { client: string }[]).map((c) => c.client)).toEqual([
      "claude-desktop 0.14.2",
      "cursor 1.7.3",
    ]);
    const delays = (client: string) => sql.repeats.filter((r) => r.client === client).map((r) => r.delay_s);
    const fast = delays("claude-desktop 0.14.2");
    const patient = delays("cursor 1.7.3");
    expect(fast.length).toBeGreaterThan(5);
    expect(patient.length).toBeGreaterThan(5);
    expect(median(fast)).toBeLessThan(20);
    expect(median(patient)).toBeGreaterThan(60);
    // The fast host fires twice at once now and then: in-flight rejections under a second.
    expect(
      sql.repeats.some((r) => r.client === "claude-desktop 0.14.2" && r.kind === "in_flight_rejected" && r.delay_s < 1),
    ).toBe(true);
  });
});
