import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { applyBulkResolution, planBulkResolution, type BulkPlan, type PlannedRow } from "@/lib/resolve/bulk-plan";
import { reconcileKeys } from "@/lib/resolve/reconcile-keys";
import { connectTestDb } from "../helpers/db";

const run = randomBytes(3).toString("hex");
const TENANT = `bulk-${run}`;
const OTHER = `bulk-other-${run}`;
const actor = (role: Actor["role"], tenants: string[] = []): Actor => ({
  kind: "user",
  id: `u-${role}`,
  name: `${role}@bulk.test`,
  displayName: role,
  role,
  tenants,
});
const operator = actor("operator");

describe("bulk plan and apply against the demo processor", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  let processor: DemoUpstream;
  let hanging: Server;
  let config: IdemConfig;
  let n = 0;

  beforeAll(async () => {
    processor = await startDemoProcessor();
    // A processor that accepts the connection and never answers: the adapter's timeout must turn it into "unknown".
    hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    config = parseConfig(
      JSON.stringify({
        tools: {
          charge_card: { processor: { type: "http", baseUrl: processor.url } },
          dead_tool: { processor: { type: "http", baseUrl: "http://127.0.0.1:1", timeout: "1s" } },
          slow_tool: { processor: { type: "http", baseUrl: hangingUrl, timeout: "1s" } },
        },
      }),
    );
  });
  afterAll(async () => {
    await processor.stop();
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
    await pool.end();
  });

  /** An in_progress claim `age` old; `taken` makes the processor hold a succeeded charge under its key. */
  async function claim(
    options: { taken?: boolean; tool?: string; tenant?: string; age?: string; status?: string } = {},
  ) {
    n += 1;
    const key = createHash("sha256").update(`bulk|${run}|${n}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, $4, now() - $5::interval)`,
      [
        key,
        options.tenant ?? TENANT,
        options.tool ?? "charge_card",
        options.status ?? "in_progress",
        options.age ?? "1 hour",
      ],
    );
    if (options.taken) await charge(key);
    return key;
  }
  async function charge(key: string) {
    const response = await fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ card: "c_4242", amount_cents: 500 + n, reference: key }),
    });
    expect(response.status).toBe(200);
  }
  const rowOf = (plan: BulkPlan, key: string) => plan.rows.find((r) => r.key === key) as PlannedRow;
  const toApply = (plan: BulkPlan) =>
    plan.rows.flatMap((r) =>
      r.proposed === "leave" ? [] : [{ key: r.key, action: r.proposed, expectedUpdatedAt: r.expectedUpdatedAt }],
    );
  const auditCount = async (keys: string[]) =>
    (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log WHERE key = ANY($1)`, [keys])).rows[0]?.n;
  const status = async (key: string) =>
    (await pool.query<{ status: string }>(`SELECT status FROM idempotency WHERE key = $1`, [key])).rows[0]?.status ??
    null;

  it("proposes complete for taken, release for not taken, and leaves unknown, unreachable, hanging, young, completed and missing rows", async () => {
    const taken = await claim({ taken: true });
    const notTaken = await claim();
    const unreachable = await claim({ tool: "dead_tool" });
    const hangs = await claim({ tool: "slow_tool" });
    const young = await claim({ age: "10 seconds" });
    const completed = await claim({ status: "completed" });
    const missing = "f".repeat(64);
    const started = Date.now();
    const plan = await planBulkResolution(db, config, operator, {
      keys: [taken, notTaken, unreachable, hangs, young, completed, missing],
    });
    expect(Date.now() - started).toBeLessThan(5_000); // the hanging processor is bounded by its 1 s timeout

    expect(rowOf(plan, taken)).toMatchObject({
      outcome: "taken",
      proposed: "complete",
      tenant: TENANT,
      tool: "charge_card",
      status: "in_progress",
      expectedUpdatedAt: null,
    });
    expect(rowOf(plan, notTaken)).toMatchObject({
      outcome: "not_taken",
      proposed: "release",
      reason: "the processor has no operation with this reference",
    });
    expect(rowOf(plan, unreachable)).toMatchObject({ outcome: "unknown", proposed: "leave" });
    expect(rowOf(plan, hangs)).toMatchObject({ outcome: "unknown", proposed: "leave" });
    expect(rowOf(plan, hangs).reason).toMatch(/time|1000 ms|1 s/i);
    expect(rowOf(plan, young)).toMatchObject({
      outcome: null,
      proposed: "leave",
      reason: expect.stringMatching(/^not stuck yet/),
    });
    expect(rowOf(plan, completed)).toMatchObject({
      outcome: null,
      proposed: "leave",
      reason: "already completed: nothing to resolve",
    });
    expect(rowOf(plan, missing)).toMatchObject({ outcome: null, proposed: "leave", status: null });
    expect(plan.totals).toEqual({ complete: 1, release: 1, leave: 5 });
    // Oldest first, as the stuck list orders them (young is the newest claim); keys not found go last.
    expect(plan.rows.map((r) => r.key)).toEqual([taken, notTaken, unreachable, hangs, completed, young, missing]);
    expect(plan.rows.filter((r) => r.nobodyToAsk)).toEqual([]); // a processor that fails to answer was still asked
    // A plan is a dry run: nothing changed, nothing audited.
    expect([await status(taken), await status(notTaken)]).toEqual(["in_progress", "in_progress"]);
    expect(await auditCount([taken, notTaken])).toBe("0");
  });

  it("a plan by filter covers the stuck claims of the actor's tenants that match, oldest first", async () => {
    const tenant = `${TENANT}-f`;
    const older = await claim({ tenant, age: "3 hours" });
    const newer = await claim({ tenant, taken: true, age: "2 hours" });
    await claim({ tenant, age: "30 seconds" }); // not stuck
    await claim({ tenant, tool: "dead_tool" });
    const plan = await planBulkResolution(db, config, operator, { filter: { tenant, tool: "charge_card" } });
    expect(plan.rows.map((r) => [r.key, r.proposed])).toEqual([
      [older, "release"],
      [newer, "complete"],
    ]);
    expect(plan.scope).toBe(`every stuck claim of tenant ${tenant}, tool charge_card`);
    expect(plan.truncated).toBe(false);
    expect(plan.matched).toBe(2);
    const limited = await planBulkResolution(db, config, actor("operator", ["someone-else"]), {
      filter: { tenant, tool: null },
    });
    expect(limited.rows).toEqual([]);
  });

  it("a tool with no processor: left, marked nobody-to-ask (asking again cannot help); over 500, the 500 oldest of an exact count", async () => {
    const tenant = `${TENANT}-none`;
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at)
       SELECT md5($1 || g) || md5($1 || g || 'x'), $1, 'send_receipt_email', 'in_progress', now() - make_interval(mins => 60 + g)
       FROM generate_series(1, 502) AS g`,
      [tenant],
    );
    const unrecorded = await claim({ tenant, tool: undefined });
    await pool.query(`UPDATE idempotency SET tool = NULL, created_at = now() - interval '1 day' WHERE key = $1`, [
      unrecorded,
    ]);
    const plan = await planBulkResolution(db, config, operator, { filter: { tenant, tool: null } });
    expect(plan.truncated).toBe(true);
    expect(plan.matched).toBe(503);
    expect(plan.rows).toHaveLength(500);
    expect(plan.scope).toBe(`the 500 oldest of the 503 stuck claims of tenant ${tenant} (a plan takes at most 500)`);
    expect(plan.rows[0]).toMatchObject({ key: unrecorded, tool: null, outcome: "unknown", nobodyToAsk: true });
    expect(plan.rows[1]).toMatchObject({
      tool: "send_receipt_email",
      outcome: "unknown",
      proposed: "leave",
      nobodyToAsk: true,
      reason: "no processor configured for tool send_receipt_email",
    });
    expect(plan.rows.every((r) => r.nobodyToAsk && r.proposed === "leave")).toBe(true);
    // The oldest: created 60 + g minutes ago, so the two newest (g = 1, 2) are the ones left out.
    const ages = plan.rows.slice(1).map((r) => r.ageMs ?? 0);
    expect(Math.min(...ages)).toBeGreaterThan(62 * 60_000);
  });

  it("apply re-checks each row: a row changed since the plan is a conflict, a changed answer is reported, the others are applied with one audit row each", async () => {
    const taken = await claim({ taken: true });
    const notTaken = await claim();
    const touched = await claim({ taken: true });
    const chargedMeanwhile = await claim();
    const releasedMeanwhile = await claim();
    const keys = [taken, notTaken, touched, chargedMeanwhile, releasedMeanwhile];
    const plan = await planBulkResolution(db, config, operator, { keys });
    expect(plan.rows.map((r) => r.proposed)).toEqual(["complete", "release", "complete", "release", "release"]);

    // Between plan and apply: a writer touches one row, the processor takes another's charge, someone releases a third.
    await pool.query(`UPDATE idempotency SET updated_at = now() WHERE key = $1`, [touched]);
    await charge(chargedMeanwhile);
    await pool.query(`DELETE FROM idempotency WHERE key = $1`, [releasedMeanwhile]);

    const applied = await applyBulkResolution(db, config, operator, {
      reason: "clearing last night's timeouts",
      rows: toApply(plan),
    });
    const byKey = new Map(applied.results.map((r) => [r.key, r]));
    expect(byKey.get(taken)).toMatchObject({ result: "ok", outcome: "taken", auditId: expect.any(String) });
    expect(byKey.get(notTaken)).toMatchObject({ result: "ok", outcome: "not_taken" });
    expect(byKey.get(touched)).toMatchObject({
      result: "conflict",
      current: { status: "in_progress", version: expect.stringMatching(/\.\d{6}Z$/) },
    });
    expect(byKey.get(chargedMeanwhile)).toMatchObject({ result: "changed_outcome", outcome: "taken" });
    expect(byKey.get(releasedMeanwhile)).toMatchObject({ result: "conflict", current: null });
    expect(applied.totals).toEqual({ ok: 2, conflict: 2, changed_outcome: 1, error: 0 });

    expect(await status(taken)).toBe("completed");
    expect(await status(notTaken)).toBeNull();
    expect([await status(touched), await status(chargedMeanwhile)]).toEqual(["in_progress", "in_progress"]);
    const audit = await pool.query<{ key: string; action: string; reason: string; actor: string }>(
      `SELECT key, action, reason, actor FROM audit_log WHERE key = ANY($1) ORDER BY id`,
      [keys],
    );
    expect(audit.rows.map((r) => [r.key, r.action]).sort()).toEqual(
      [
        [taken, "record.complete"],
        [notTaken, "record.release"],
      ].sort(),
    );
    expect(
      audit.rows.every((r) => r.reason === "bulk: clearing last night's timeouts" && r.actor === "operator@bulk.test"),
    ).toBe(true);
    const stored = await pool.query<{ response: { reference: string; status: string } }>(
      `SELECT response FROM idempotency WHERE key = $1`,
      [taken],
    );
    expect(stored.rows[0]?.response).toMatchObject({ reference: taken, status: "succeeded" });

    // Applying the same plan again changes nothing more.
    const again = await applyBulkResolution(db, config, operator, {
      reason: "clearing last night's timeouts",
      rows: toApply(plan),
    });
    expect(again.totals.ok).toBe(0);
    expect(await auditCount(keys)).toBe("2");
  });

  it("apply never touches another tenant's claim for a tenant-limited operator, nor a claim that is not stuck", async () => {
    const theirs = await claim({ tenant: OTHER, taken: true });
    const young = await claim({ taken: true, age: "5 seconds" });
    const result = await applyBulkResolution(db, config, actor("operator", [TENANT]), {
      reason: "trying",
      rows: [
        { key: theirs, action: "complete", expectedUpdatedAt: null },
        { key: young, action: "complete", expectedUpdatedAt: null },
      ],
    });
    expect(result.results.map((r) => r.result)).toEqual(["conflict", "error"]);
    expect([await status(theirs), await status(young)]).toEqual(["in_progress", "in_progress"]);
    expect(await auditCount([theirs, young])).toBe("0");
  });

  it("reconcile by keys: a dry run reports, a real run resolves, in the reconciler's result shape", async () => {
    const taken = await claim({ taken: true });
    const unreachable = await claim({ tool: "dead_tool" });
    const dry = await reconcileKeys(db, config, operator, [taken, unreachable], true);
    expect(dry.rows.map((r) => [r.key, r.action])).toEqual([
      [taken, "completed"],
      [unreachable, "left"],
    ]);
    expect(await status(taken)).toBe("in_progress");
    const real = await reconcileKeys(db, config, operator, [taken, unreachable], false);
    expect(real.totals).toMatchObject({ completed: 1, left: 1, conflict: 0 });
    expect(real.rows[0]?.auditId).toEqual(expect.any(String));
    expect(await status(taken)).toBe("completed");
    expect(await status(unreachable)).toBe("in_progress");
    // The reconciler's work under the person's name: its reason prefix is what the metrics count as the reconciler's.
    expect((await db.auditLog.findMany({ where: { key: taken } })).map((r) => r.reason)).toEqual([
      "reconciler: reconcile by key",
    ]);
  });
});
