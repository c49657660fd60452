import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withIdempotency, REFERENCE_CLAIM, REFERENCE_COMPLETE } from "idem-guard";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { duplicateFigures } from "@/lib/duplicates/duplicate-figures";
import { listDuplicates } from "@/lib/duplicates/list-duplicates";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";
import type { Actor } from "@/lib/identity/actor";
import { toExposition } from "@/lib/metrics/prometheus-exposition";
import { readScrapeFigures } from "@/lib/metrics/scrape-figures";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { tenantScopeOf } from "@/lib/tenancy/tenant-scope";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

const config = parseConfig(
  JSON.stringify({ tools: { send_receipt_email: { businessKey: true }, refund_charge: { window: "1h" } } }),
);
const everyone = tenantScopeOf(null);
const admin: Actor = {
  kind: "user",
  id: "admin",
  name: "admin@test",
  displayName: "admin",
  role: "admin",
  tenants: [],
};

// The scan state is global, so this file has a database of its own. Claims are written by the real
// guard with an injected clock, three hours back (older than the scan's settle time).
describe("duplicates that got through", () => {
  let database: TestDatabase;
  let db: Db;
  let pool: pg.Pool;
  const edge = new Date(Math.floor((Date.now() - 3 * 3_600_000) / 900_000) * 900_000);
  const at = (offsetSeconds: number) => new Date(edge.getTime() + offsetSeconds * 1000);

  async function call(tool: string, when: Date, args: object, who: { tenant?: string; subject?: string | null } = {}) {
    const guarded = withIdempotency(
      {
        db: pool,
        tool,
        statusTool: "get_charge_status",
        clock: () => when,
        businessKey: tool === "send_receipt_email" ? () => `charge-${when.getTime()}` : undefined,
      },
      async () => ({ ok: true }),
    );
    return guarded({
      tenant: who.tenant ?? "acme",
      subject: who.subject === undefined ? "user_1" : who.subject,
      argumentsJson: JSON.stringify(args),
    });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url, 2);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // Straddles the bucket edge: 10 s before it and 20 s after: two keys, one operation, executed twice.
    await call("charge_card", at(-10), { card: "c_1", amount_cents: 100 });
    await call("charge_card", at(20), { card: "c_1", amount_cents: 100 });
    // The same without a subject (the key's "None").
    await call("charge_card", at(-5), { card: "c_2", amount_cents: 100 }, { subject: null });
    await call("charge_card", at(5), { card: "c_2", amount_cents: 100 }, { subject: null });
    // Not duplicates: further apart than the window; another subject; another tenant; other arguments.
    await call("charge_card", at(-1_000), { card: "c_3", amount_cents: 100 });
    await call("charge_card", at(100), { card: "c_3", amount_cents: 100 });
    await call("charge_card", at(30), { card: "c_1", amount_cents: 100 }, { subject: "user_2" });
    await call("charge_card", at(40), { card: "c_1", amount_cents: 100 }, { tenant: "globex" });
    await call("charge_card", at(50), { card: "c_1", amount_cents: 101 });
    // A business-key tool: two charges' receipts with equal arguments are two operations by its rule.
    await call("send_receipt_email", at(-20), { to: "x" });
    await call("send_receipt_email", at(20), { to: "x" });
    // A tool with a 1 h window (config): 30 min apart is inside it.
    await call("refund_charge", at(-900), { charge: "ch_1" });
    await call("refund_charge", at(900), { charge: "ch_1" });
    // The reference writer: no tool, no hash. Its rows are never paired, and its tool is "not recorded".
    for (const n of [1, 2]) {
      const key = createHash("sha256").update(`reference-${n}`).digest("hex");
      await pool.query(REFERENCE_CLAIM, [key, "acme"]);
      await pool.query(REFERENCE_COMPLETE, [key, "{}"]);
    }
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  it("finds exactly the pairs a brute-force SQL self-join finds, and counts them per tool", async () => {
    const scan = await scanDuplicates(db, config, new Date(), { maxChunks: 2_000 });
    expect(scan.found).toBe(3);
    const truth = await pool.query<{ tool: string; n: string }>(`
      SELECT b.tool, count(*) AS n FROM idempotency b
      WHERE b.arguments_sha256 IS NOT NULL AND b.tool <> 'send_receipt_email' AND EXISTS (
        SELECT 1 FROM idempotency a WHERE a.tenant = b.tenant AND a.subject IS NOT DISTINCT FROM b.subject
          AND a.tool = b.tool AND a.arguments_sha256 = b.arguments_sha256 AND a.key <> b.key
          AND a.created_at <= b.created_at
          AND b.created_at - a.created_at < CASE b.tool WHEN 'refund_charge' THEN interval '1 hour' ELSE interval '15 minutes' END
          AND (a.created_at, a.key) < (b.created_at, b.key))
      GROUP BY b.tool ORDER BY 1`);
    expect(truth.rows.map((r) => [r.tool, Number(r.n)])).toEqual([
      ["charge_card", 2],
      ["refund_charge", 1],
    ]);

    const since = new Date(edge.getTime() - 3_600_000);
    const figures = await duplicateFigures(db, everyone, { since, until: new Date() });
    expect(figures.byTool).toEqual([
      { tool: "charge_card", duplicates: 2, hashedClaims: 9, argumentsMismatches: 0 },
      { tool: "refund_charge", duplicates: 1, hashedClaims: 2, argumentsMismatches: 0 },
      { tool: "send_receipt_email", duplicates: 0, hashedClaims: 2, argumentsMismatches: 0 },
    ]);
    expect(new Date(figures.scannedThrough!).getTime()).toBeGreaterThan(Date.now() - 6 * 60_000);

    // The scrape's counter, by tool and tenant, from the same hours (a tenant keeps its label by its rolled traffic).
    await rollUpSettled(db, new Date());
    const scrape = await toExposition(await readScrapeFigures(db, config, admin, new Date()), {
      version: "test",
      consoleUrl: "http://console.test",
    });
    expect(scrape).toContain('idem_duplicates_through_total{tool="charge_card",tenant="acme"} 2');
    expect(scrape).toContain('idem_duplicates_through_total{tool="refund_charge",tenant="acme"} 1');
    expect(scrape).not.toContain('idem_duplicates_through_total{tool="send_receipt_email"');
  });

  it("lists each with both claims, the gap and the bucket edge it straddles; a second scan adds nothing", async () => {
    const again = await scanDuplicates(db, config, new Date());
    expect(again.found).toBe(0);
    const list = await listDuplicates(db, everyone, {
      since: new Date(edge.getTime() - 3_600_000),
      until: new Date(),
      tool: "charge_card",
      limit: 10,
    });
    expect(list.entries.map((e) => [e.subject, e.gapMs, e.bucketEdge])).toEqual([
      ["user_1", 30_000, edge.toISOString()],
      [null, 10_000, edge.toISOString()],
    ]);
    expect(list.entries[0]?.first.createdAt).toBe(at(-10).toISOString());
    expect(list.entries[0]?.second.ref).toHaveLength(12);
    const page1 = await listDuplicates(db, everyone, { since: new Date(0), until: new Date(), limit: 1 });
    expect(page1.nextCursor).not.toBeNull();
    const [cursorAt, cursorKey] = page1.nextCursor!.split("~");
    const page2 = await listDuplicates(db, everyone, {
      since: new Date(0),
      until: new Date(),
      limit: 5,
      cursor: { at: new Date(cursorAt!), key: cursorKey! },
    });
    expect(page2.entries).toHaveLength(2);
    expect(page2.nextCursor).toBeNull();
  });

  it("a tenant outside the scope sees none of them; a tool whose writer records no hash is not recorded", async () => {
    const globexOnly = await duplicateFigures(db, tenantScopeOf(["globex"]), { since: new Date(0), until: new Date() });
    expect(globexOnly.byTool).toEqual([
      { tool: "charge_card", duplicates: 0, hashedClaims: 1, argumentsMismatches: 0 },
    ]);
    // The reference writer's rows carry no tool and no hash: the scan never reads them.
    const unscanned = await pool.query(`SELECT count(*)::int AS n FROM idempotency WHERE arguments_sha256 IS NULL`);
    expect(unscanned.rows[0].n).toBe(2);
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status) VALUES ($1, 'acme', 'legacy_tool', 'completed')`,
      ["f".repeat(64)],
    );
    const figures = await duplicateFigures(db, everyone, {
      since: new Date(0),
      until: new Date(),
      tool: "legacy_tool",
    });
    expect(figures.byTool).toEqual([]);
  });
});
