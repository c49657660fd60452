import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withIdempotency } from "idem-guard";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";
import type { Actor } from "@/lib/identity/actor";
import { toExposition } from "@/lib/metrics/prometheus-exposition";
import { readScrapeFigures } from "@/lib/metrics/scrape-figures";
import { REPEAT_DELAY_EDGES_S } from "@/lib/repeats/repeat-delay-buckets";
import { repeatDelayFigures } from "@/lib/repeats/repeat-figures";
import { tenantScopeOf } from "@/lib/tenancy/tenant-scope";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

const config = parseConfig(JSON.stringify({ tools: { send_receipt_email: { businessKey: true } } }));
const admin: Actor = { kind: "user", id: "a", name: "a@test", displayName: "a", role: "admin", tenants: [] };

// Repeats written by the real guard with an injected clock, two hours back (older than the scan's
// settle time), each at a chosen delay after its first call; the figures must equal SQL over the events.
describe("where repeats come from", () => {
  let database: TestDatabase;
  let db: Db;
  let pool: pg.Pool;
  let mismatch = "";
  // One second into a 15-minute bucket, so every repeat below (≤ 800 s later) lands on the same key.
  const start = new Date(Math.floor((Date.now() - 2 * 3_600_000) / 900_000) * 900_000 + 1_000);

  async function call(
    tool: string,
    delayS: number,
    args: object,
    client: string | null,
    handler: () => Promise<object> = async () => ({ ok: true }),
  ) {
    const when = new Date(start.getTime() + delayS * 1000);
    const guarded = withIdempotency(
      {
        db: pool,
        tool,
        statusTool: "get_charge_status",
        clock: () => when,
        // The receipt is keyed by its order alone: one receipt per order, whatever the arguments.
        ...(tool === "send_receipt_email" ? { businessKey: () => "order-42", argumentsInKey: false } : {}),
      },
      handler,
    );
    return guarded({ tenant: "acme", subject: "user_1", argumentsJson: JSON.stringify(args), client });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url, 2);
    pool = new pg.Pool({ connectionString: database.url, max: 3 });
    const charge = { card: "c_1", amount_cents: 100 };
    // The first call holds its claim while a concurrent double-submit arrives 0.3 s later: in flight.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = call("charge_card", 0, charge, "fast-host 1.0", async () => (await held, { ok: true }));
    await new Promise((r) => setTimeout(r, 200));
    expect((await call("charge_card", 0.3, charge, "fast-host 1.0")).outcome).toBe("in_flight");
    release();
    expect((await first).outcome).toBe("executed");
    for (const [delayS, client] of [
      [3, "fast-host 1.0"],
      [12, "fast-host 1.0"],
      [45, "fast-host 1.0"],
      [300, "slow-host 2.0"],
      [800, "slow-host 2.0"],
      [30, null],
    ] as const)
      expect((await call("charge_card", delayS, charge, client)).outcome).toBe("replayed");
    // A business key never stops deduplicating: 800 s is "minutes", not "near the window's end".
    await call("send_receipt_email", 0, { to: "x" }, "slow-host 2.0");
    expect((await call("send_receipt_email", 800, { to: "x" }, "slow-host 2.0")).outcome).toBe("replayed");
    // The same business key with other arguments: refused, counted as a mismatch, not as a repeat.
    mismatch = (await call("send_receipt_email", 60, { to: "y" }, "slow-host 2.0")).outcome;
    await scanDuplicates(db, config, new Date(), { maxChunks: 2_000 });
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  it("bands each repeat by its delay, per tool and per host, exactly as SQL over the events does", async () => {
    const figures = await repeatDelayFigures(db, tenantScopeOf(null), {
      since: new Date(start.getTime() - 3_600_000),
      until: new Date(),
    });
    const charge = figures.byTool.find((t) => t.tool === "charge_card")!;
    expect(charge.bands).toEqual({ at_once: 1, seconds: 2, around_timeout: 2, minutes: 1, near_window_end: 1 });
    expect(charge.byClient.map((c) => [c.client, c.repeats, c.median])).toEqual([
      ["fast-host 1.0", 4, { fromS: 1, toS: 5 }],
      ["slow-host 2.0", 2, { fromS: 300, toS: 600 }],
      [null, 1, { fromS: 20, toS: 60 }],
    ]);
    const receipt = figures.byTool.find((t) => t.tool === "send_receipt_email")!;
    expect(receipt.bands).toEqual({ at_once: 0, seconds: 0, around_timeout: 0, minutes: 1, near_window_end: 0 });
    expect(figures.byTool.map((t) => t.topTenants)).toEqual([
      [{ tenant: "acme", repeats: 7, bands: charge.bands }],
      [{ tenant: "acme", repeats: 1, bands: receipt.bands }],
    ]);

    // The truth: every repeat event's delay, straight from the base tables.
    const truth = await pool.query<{ tool: string; client: string | null; n: string; sum_ms: number }>(`
      SELECT e.tool, e.client, count(*) AS n, sum(extract(epoch FROM e.at - r.created_at) * 1000)::float8 AS sum_ms
      FROM idempotency_event e JOIN idempotency r USING (key)
      WHERE e.kind IN ('replay_served', 'in_flight_rejected') GROUP BY 1, 2 ORDER BY 1, 2`);
    for (const row of truth.rows) {
      const tool = figures.byTool.find((t) => t.tool === row.tool)!;
      const client = tool.byClient.find((c) => c.client === row.client)!;
      expect([client.repeats, client.meanMs]).toEqual([Number(row.n), Math.round(row.sum_ms / Number(row.n))]);
    }
    expect(figures.byClient.map((c) => [c.client, c.repeats])).toEqual([
      ["fast-host 1.0", 4],
      ["slow-host 2.0", 3],
      [null, 1],
    ]);
    expect(mismatch).toBe("arguments_mismatch");
    const mismatches = await pool.query(`SELECT sum(arguments_mismatches)::int AS n FROM duplicate_scan_hourly`);
    expect(mismatches.rows[0].n).toBe(1);
  });

  it("a second scan counts nothing twice; the scrape has the histogram with cumulative buckets", async () => {
    await scanDuplicates(db, config, new Date());
    const figures = await repeatDelayFigures(db, tenantScopeOf(null), {
      since: new Date(start.getTime() - 3_600_000),
      until: new Date(),
    });
    expect(figures.byTool.find((t) => t.tool === "charge_card")!.repeats).toBe(7);
    const scrape = await toExposition(await readScrapeFigures(db, config, admin, new Date()), {
      version: "test",
      consoleUrl: "http://console.test",
    });
    expect(scrape).toContain("# TYPE idem_repeat_delay_seconds histogram");
    // 0.3 s; 3 and 12 s; 30 and 45 s; 300 s; 800 s.
    const expected: Record<string, number> = {
      "1": 1,
      "5": 2,
      "20": 3,
      "60": 5,
      "90": 5,
      "300": 5,
      "600": 6,
      "900": 7,
    };
    for (const [le, n] of Object.entries(expected))
      expect(scrape).toContain(`idem_repeat_delay_seconds_bucket{tool="charge_card",le="${le}"} ${n}`);
    expect(scrape).toContain(`idem_repeat_delay_seconds_bucket{tool="charge_card",le="+Inf"} 7`);
    expect(scrape).toContain(`idem_repeat_delay_seconds_count{tool="charge_card"} 7`);
    expect(scrape).toMatch(/idem_repeat_delay_seconds_sum\{tool="charge_card"\} 1190\.3\d*\n/);
    expect(REPEAT_DELAY_EDGES_S).toContain(900);
  });
});
