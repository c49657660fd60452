import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { createPrismaClient } from "@/lib/db/prisma";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { reconcile, type ReconcileOptions, type ReconcileResult } from "@/lib/resolve/reconcile";
import { connectTestDb } from "../helpers/db";
import { backendPid, waitForLockWaiters } from "../helpers/lock-waiters";
import { freePort } from "../helpers/free-port";
import { runCli } from "../helpers/run-cli";

const run = randomBytes(3).toString("hex");
/** Every test works in tenants of its own: the database is shared with the run's other files. */
const tenant = (name: string) => `reconcile-${run}-${name}`;

/** Starts an HTTP server on a free port; `handler` decides what each request gets. */
async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe("reconcile: stuck claims against the demo processor", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 8 });
  let processor: DemoUpstream;
  /** In front of the processor: answers /references after 100 ms and counts the questions per key. */
  let slow: { url: string; server: Server };
  const asked = new Map<string, number>();
  /** Accepts the request and never answers: a processor that times out. */
  let hanging: { url: string; server: Server };
  let closedPort: number;
  let config: IdemConfig;
  let n = 0;

  beforeAll(async () => {
    processor = await startDemoProcessor();
    slow = await listen(async (req, res) => {
      const key = decodeURIComponent((req.url ?? "").replace(/^\/references\//, ""));
      asked.set(key, (asked.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 100));
      const answer = await fetch(`${processor.url}${req.url}`);
      res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
    });
    hanging = await listen(() => {});
    closedPort = await freePort(); // nothing listens there: connection refused
    config = parseConfig(
      JSON.stringify({
        tools: {
          charge_card: { processor: { type: "http", baseUrl: processor.url } },
          slow_charge: { processor: { type: "http", baseUrl: slow.url } },
          dead_tool: { processor: { type: "http", baseUrl: `http://127.0.0.1:${closedPort}`, timeout: "1s" } },
          hanging_tool: { processor: { type: "http", baseUrl: hanging.url, timeout: "300ms" } },
        },
      }),
    );
  });
  afterAll(async () => {
    await processor.stop();
    await close(slow.server);
    await close(hanging.server);
    await pool.end();
  });

  /** A claim stuck for an hour; `taken` makes the processor hold a succeeded charge under its key. */
  async function stuckClaim(options: { tenant: string; taken: boolean; tool?: string }): Promise<string> {
    n += 1;
    const key = createHash("sha256").update(`reconcile|${run}|${n}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, 'in_progress', now() - interval '1 hour')`,
      [key, options.tenant, options.tool ?? "charge_card"],
    );
    if (options.taken) {
      const response = await fetch(`${processor.url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: 1000 + n, reference: key }),
      });
      expect(response.status).toBe(200);
    }
    return key;
  }

  const options = (t: string, extra: Partial<ReconcileOptions> = {}): ReconcileOptions => ({
    olderThanMs: null,
    tool: null,
    tenant: t,
    limit: 1000,
    concurrency: 4,
    dryRun: false,
    ...extra,
  });
  const row = (key: string) => db.idempotency.findUnique({ where: { key } });
  const auditRows = (key: string) => db.auditLog.findMany({ where: { key } });
  const byKey = (result: ReconcileResult, key: string) => result.rows.find((r) => r.key === key);

  it("taken → completed with the processor's receipt; not taken → released, its snapshot in the audit row (actor system:reconciler)", async () => {
    const t = tenant("outcomes");
    const taken = await stuckClaim({ tenant: t, taken: true });
    const notTaken = await stuckClaim({ tenant: t, taken: false });

    const result = await reconcile(db, config, options(t));

    expect(result).toMatchObject({
      dryRun: false,
      candidates: 2,
      unresolved: 0,
      totals: { completed: 1, released: 1, left: 0, conflict: 0, skipped: 0, errors: 0 },
    });
    expect(byKey(result, taken)).toMatchObject({
      ref: taken.slice(0, 12),
      tenant: t,
      tool: "charge_card",
      outcome: "taken",
      action: "completed",
    });
    expect(byKey(result, taken)?.ageMs).toBeGreaterThan(59 * 60_000);
    expect(byKey(result, notTaken)).toMatchObject({ outcome: "not_taken", action: "released" });

    const completed = await row(taken);
    expect(completed?.status).toBe("completed");
    expect(completed?.response).toMatchObject({ reference: taken, status: "succeeded" });
    const [completeAudit, ...moreComplete] = await auditRows(taken);
    expect(moreComplete).toHaveLength(0);
    expect(completeAudit).toMatchObject({
      action: "record.complete",
      actor: "system:reconciler",
      actorRole: "operator",
      tenant: t,
    });
    expect(completeAudit?.id.toString()).toBe(byKey(result, taken)?.auditId);
    expect(completeAudit?.evidence).toMatchObject({ outcome: "taken" });

    expect(await row(notTaken)).toBeNull();
    const [releaseAudit, ...moreRelease] = await auditRows(notTaken);
    expect(moreRelease).toHaveLength(0);
    expect(releaseAudit).toMatchObject({
      action: "record.release",
      actor: "system:reconciler",
      before: { key: notTaken, status: "in_progress", tenant: t },
    });
  });

  it("an unreachable or timing-out processor changes nothing: the row stays, no audit row, counted unresolved", async () => {
    const t = tenant("unknown");
    const unreachable = await stuckClaim({ tenant: t, taken: false, tool: "dead_tool" });
    const hangs = await stuckClaim({ tenant: t, taken: false, tool: "hanging_tool" });
    const unconfigured = await stuckClaim({ tenant: t, taken: false, tool: "no_such_tool" });

    const started = Date.now();
    const result = await reconcile(db, config, options(t));
    expect(Date.now() - started).toBeLessThan(5_000); // the hanging processor was cut off at its 300 ms timeout

    expect(result).toMatchObject({
      candidates: 3,
      unresolved: 3,
      totals: { completed: 0, released: 0, left: 3, conflict: 0 },
    });
    expect(byKey(result, hangs)).toMatchObject({
      outcome: "unknown",
      action: "left",
      reason: expect.stringMatching(/no answer within 0\.3 s/),
    });
    expect(byKey(result, unreachable)).toMatchObject({
      outcome: "unknown",
      action: "left",
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(byKey(result, unconfigured)).toMatchObject({ outcome: "unknown", action: "left" });
    for (const key of [unreachable, hangs, unconfigured]) {
      expect(await row(key)).toMatchObject({ status: "in_progress", updatedAt: null, response: null });
      expect(await auditRows(key)).toHaveLength(0);
    }
  });

  it("a dry run asks and reports the plan, and changes nothing", async () => {
    const t = tenant("dry");
    const taken = await stuckClaim({ tenant: t, taken: true });
    const notTaken = await stuckClaim({ tenant: t, taken: false });

    const result = await reconcile(db, config, options(t, { dryRun: true }));

    expect(result).toMatchObject({ dryRun: true, candidates: 2, unresolved: 0 });
    expect(byKey(result, taken)).toMatchObject({ outcome: "taken", action: "completed" });
    expect(byKey(result, notTaken)).toMatchObject({ outcome: "not_taken", action: "released" });
    expect(result.rows.every((r) => r.auditId === undefined)).toBe(true);
    for (const key of [taken, notTaken]) {
      expect(await row(key)).toMatchObject({ status: "in_progress", updatedAt: null });
      expect(await auditRows(key)).toHaveLength(0);
    }
  });

  it("--older-than, --tool and --limit narrow the candidates, oldest first", async () => {
    const t = tenant("criteria");
    const old = await stuckClaim({ tenant: t, taken: true });
    await pool.query(`UPDATE idempotency SET created_at = now() - interval '3 hours' WHERE key = $1`, [old]);
    await stuckClaim({ tenant: t, taken: true }); // 1 h old
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, 'charge_card', 'in_progress', now() - interval '1 minute')`,
      [createHash("sha256").update(`fresh|${run}`).digest("hex"), t],
    );
    await stuckClaim({ tenant: t, taken: false, tool: "dead_tool" });

    expect((await reconcile(db, config, options(t, { dryRun: true }))).candidates).toBe(3); // the 1-minute claim is not stuck (5 min default)
    expect(
      (await reconcile(db, config, options(t, { dryRun: true, olderThanMs: 2 * 3_600_000 }))).rows.map((r) => r.key),
    ).toEqual([old]);
    expect((await reconcile(db, config, options(t, { dryRun: true, olderThanMs: 30_000 }))).candidates).toBe(4);
    expect(
      (await reconcile(db, config, options(t, { dryRun: true, tool: "dead_tool" }))).rows.map((r) => r.tool),
    ).toEqual(["dead_tool"]);
    expect((await reconcile(db, config, options(t, { dryRun: true, limit: 1 }))).rows.map((r) => r.key)).toEqual([old]);
  });

  it("two reconcilers started at once over the same 40 rows act on each row exactly once", async () => {
    const t = tenant("race");
    const keys: string[] = [];
    for (let i = 0; i < 40; i++) keys.push(await stuckClaim({ tenant: t, taken: i % 2 === 0, tool: "slow_charge" }));
    asked.clear();
    // Two reconcilers as two processes would be: each with its own connection pool.
    const first = createPrismaClient(inject("databaseUrl"), 5);
    const second = createPrismaClient(inject("databaseUrl"), 5);
    try {
      const [a, b] = await Promise.all([reconcile(first, config, options(t)), reconcile(second, config, options(t))]);

      // Both saw all 40 as candidates, and each took a share: neither simply ran after the other.
      expect([a.candidates, b.candidates]).toEqual([40, 40]);
      expect(a.rows.length).toBeGreaterThan(0);
      expect(b.rows.length).toBeGreaterThan(0);
      expect(a.rows.length + b.rows.length).toBe(40);
      const actedOn = [...a.rows, ...b.rows].map((r) => r.key).sort();
      expect(actedOn).toEqual([...keys].sort());
      expect(a.totals.skipped).toBe(b.rows.length);
      expect(a.totals.conflict + b.totals.conflict).toBe(0);
      expect(a.totals.completed + b.totals.completed).toBe(20);
      expect(a.totals.released + b.totals.released).toBe(20);

      // The processor was asked about each reference once: a locked row is skipped, not asked about again.
      expect(keys.map((k) => asked.get(k) ?? 0)).toEqual(keys.map(() => 1));
      const audit = await db.auditLog.groupBy({ by: ["key"], where: { tenant: t }, _count: { _all: true } });
      expect(audit).toHaveLength(40);
      expect(audit.every((g) => g._count._all === 1)).toBe(true);
      expect(await db.idempotency.count({ where: { tenant: t, status: "in_progress" } })).toBe(0);
    } finally {
      await first.$disconnect();
      await second.$disconnect();
    }
  });

  it("a row another session holds for a moment is waited for and acted on, not skipped for good", async () => {
    const t = tenant("held");
    const held = await stuckClaim({ tenant: t, taken: true });
    const free = await stuckClaim({ tenant: t, taken: false });
    // Another session locks the row and lets go without changing it, as a reconciler that found
    // the row already handled does: SKIP LOCKED passes it over while the lock lasts.
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT key FROM idempotency WHERE key = $1 FOR UPDATE", [held]);
      const running = reconcile(db, config, options(t));
      await waitForLockWaiters(pool, await backendPid(holder)); // past SKIP LOCKED, the reconciler now waits on the held row
      await holder.query("COMMIT");
      const result = await running;

      expect(result.rows.map((r) => r.key).sort()).toEqual([held, free].sort());
      expect(byKey(result, held)).toMatchObject({ outcome: "taken", action: "completed" });
      expect(result.totals).toMatchObject({ completed: 1, released: 1, skipped: 0, left: 0 });
      expect(await row(held)).toMatchObject({ status: "completed" });
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      holder.release();
    }
  });

  describe("the CLI", () => {
    let configFile: string;
    const env = () => ({ DATABASE_URL: inject("databaseUrl"), IDEM_CONFIG: configFile });

    beforeAll(() => {
      configFile = path.join(mkdtempSync(path.join(tmpdir(), "idem-reconcile-")), "idem.config.json");
      writeFileSync(
        configFile,
        JSON.stringify({
          tools: {
            charge_card: { processor: { type: "http", baseUrl: processor.url } },
            dead_tool: { processor: { type: "http", baseUrl: `http://127.0.0.1:${closedPort}`, timeout: "1s" } },
          },
        }),
      );
    });

    it("exits 0 when nothing stays unresolved, and --json prints the whole result", async () => {
      const t = tenant("cli-ok");
      const taken = await stuckClaim({ tenant: t, taken: true });
      const notTaken = await stuckClaim({ tenant: t, taken: false });
      const cli = await runCli(["reconcile", "--tenant", t, "--json"], env());
      // stderr only says which configuration was loaded; stdout is the JSON alone.
      expect(cli.stderr).toBe(`idem config: ${configFile} (named by IDEM_CONFIG)\n`);
      expect(cli.code).toBe(0);
      const result = JSON.parse(cli.stdout) as ReconcileResult;
      expect(result).toMatchObject({
        dryRun: false,
        candidates: 2,
        unresolved: 0,
        criteria: { olderThanMs: null, tool: null, tenant: t, limit: 1000, concurrency: 4 },
        totals: { completed: 1, released: 1, left: 0, conflict: 0, skipped: 0, errors: 0 },
      });
      expect(result.rows.map((r) => [r.key, r.action])).toEqual([
        [taken, "completed"],
        [notTaken, "released"],
      ]);
      expect(Object.keys(result.rows[0] ?? {}).sort()).toEqual([
        "action",
        "ageMs",
        "auditId",
        "checkMs",
        "key",
        "outcome",
        "reason",
        "ref",
        "tenant",
        "tool",
      ]);
      expect((await auditRows(taken))[0]?.actor).toBe("system:reconciler");
    });

    it("exits 3 when claims stay unresolved, naming them", async () => {
      const t = tenant("cli-left");
      const key = await stuckClaim({ tenant: t, taken: false, tool: "dead_tool" });
      const cli = await runCli(["reconcile", "--tenant", t, "--older-than", "30m"], env());
      expect(cli.code).toBe(3);
      expect(cli.stdout).toContain(key.slice(0, 12));
      expect(cli.stdout).toMatch(/left 1.*1 stay unresolved/s);
      expect((await row(key))?.status).toBe("in_progress");
    });

    it.each([
      [["--older-than", "15", "minutes"], "--older-than"],
      [["--concurrency", "0"], "--concurrency"],
      [["--limit", "x"], "--limit"],
      [["--limit", "-5"], "--limit"],
    ])("bad input %j exits 2 naming %s", async (args, option) => {
      const cli = await runCli(["reconcile", ...args], env());
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain(option);
      expect(cli.stdout).toBe("");
    });
  });
});
