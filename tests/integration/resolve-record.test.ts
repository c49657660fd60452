import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { REFERENCE_COMPLETE } from "idem-guard";
import { resolveRecord, type ResolveInput } from "@/lib/resolve/resolve-record";
import { connectTestDb } from "../helpers/db";
import { backendPid, waitForLockWaiters } from "../helpers/lock-waiters";

const actor = (role: Actor["role"], tenants: string[] = []): Actor => ({
  kind: "user",
  id: `u-${role}`,
  name: `${role}@resolve.test`,
  displayName: role,
  role,
  tenants,
});
const operator = actor("operator");
const admin = actor("admin");
const TENANT = "resolve-test";

describe("resolveRecord: compare-and-set against the processor's answer", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 24 });
  let processor: DemoUpstream;
  let config: IdemConfig;
  let n = 0;

  beforeAll(async () => {
    processor = await startDemoProcessor();
    config = parseConfig(
      JSON.stringify({
        tools: {
          charge_card: { processor: { type: "http", baseUrl: processor.url } },
          dead_tool: { processor: { type: "http", baseUrl: "http://127.0.0.1:1", timeout: "1s" } },
        },
      }),
    );
  });
  afterAll(async () => {
    await processor.stop();
    await pool.end();
  });

  /** A stuck claim; `taken` makes the processor hold a succeeded charge under its key. */
  async function stuckClaim(options: { taken: boolean; tool?: string; tenant?: string }) {
    n += 1;
    const key = createHash("sha256").update(`resolve|${Date.now()}|${n}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, 'in_progress', now() - interval '1 hour')`,
      [key, options.tenant ?? TENANT, options.tool ?? "charge_card"],
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
  const input = (action: ResolveInput["action"], extra: Partial<ResolveInput> = {}): ResolveInput => ({
    action,
    reason: "stuck after a processor timeout",
    expectedUpdatedAt: null,
    ...extra,
  });
  const auditRows = (key: string) => db.auditLog.findMany({ where: { key } });
  const row = (key: string) => db.idempotency.findUnique({ where: { key } });

  it("taken → complete stores the processor's receipt, with one audit row holding before and evidence", async () => {
    const key = await stuckClaim({ taken: true });
    const result = await resolveRecord(db, config, operator, key, input("complete"));
    expect(result.ok).toBe(true);
    const stored = await row(key);
    expect(stored?.status).toBe("completed");
    expect(stored?.response).toMatchObject({ reference: key, status: "succeeded" });
    const audit = await auditRows(key);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "record.complete",
      actor: "operator@resolve.test",
      actorRole: "operator",
      reason: "stuck after a processor timeout",
    });
    expect(audit[0]?.before).toMatchObject({ key, status: "in_progress" });
    expect(audit[0]?.evidence).toMatchObject({ outcome: "taken", evidence: { adapter: "http", status: 200 } });
  });

  it("not taken → release deletes the row; the audit row keeps its snapshot", async () => {
    const key = await stuckClaim({ taken: false });
    const result = await resolveRecord(db, config, operator, key, input("release"));
    expect(result.ok).toBe(true);
    expect(await row(key)).toBeNull();
    const audit = await auditRows(key);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "record.release",
      tenant: TENANT,
      before: { key, status: "in_progress", tool: "charge_card" },
      evidence: { outcome: "not_taken" },
    });
  });

  it("refuses what the evidence does not allow, changing nothing", async () => {
    const taken = await stuckClaim({ taken: true });
    expect(await resolveRecord(db, config, operator, taken, input("release"))).toMatchObject({
      ok: false,
      code: "outcome_mismatch",
    });
    const notTaken = await stuckClaim({ taken: false });
    expect(await resolveRecord(db, config, operator, notTaken, input("complete"))).toMatchObject({
      ok: false,
      code: "outcome_mismatch",
    });
    const unreachable = await stuckClaim({ taken: false, tool: "dead_tool" });
    expect(await resolveRecord(db, config, operator, unreachable, input("release"))).toMatchObject({
      ok: false,
      code: "outcome_unknown",
    });
    for (const key of [taken, notTaken, unreachable]) {
      expect((await row(key))?.status).toBe("in_progress");
      expect(await auditRows(key)).toHaveLength(0);
    }
  });

  it("a forced release needs an admin and the typed confirmation", async () => {
    const key = await stuckClaim({ taken: false, tool: "dead_tool" });
    expect(
      await resolveRecord(db, config, operator, key, input("release", { force: true, confirm: "force release" })),
    ).toMatchObject({ ok: false, code: "forbidden" });
    expect(await resolveRecord(db, config, admin, key, input("release", { force: true }))).toMatchObject({
      ok: false,
      code: "bad_request",
    });
    expect(await auditRows(key)).toHaveLength(0);
    const forced = await resolveRecord(
      db,
      config,
      admin,
      key,
      input("release", { force: true, confirm: "force release" }),
    );
    expect(forced).toMatchObject({ ok: true, forced: true });
    expect(await row(key)).toBeNull();
    expect((await auditRows(key)).map((a) => a.action)).toEqual(["record.force_release"]);
  });

  it("viewers may not resolve; another tenant's record does not exist for a tenant-limited operator", async () => {
    const key = await stuckClaim({ taken: true });
    expect(await resolveRecord(db, config, actor("viewer"), key, input("complete"))).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await resolveRecord(db, config, actor("operator", ["someone-else"]), key, input("complete"))).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect((await row(key))?.status).toBe("in_progress");
  });

  it("a stale version is a conflict: nothing is overwritten and the current row comes back", async () => {
    const key = await stuckClaim({ taken: true });
    await pool.query(`UPDATE idempotency SET updated_at = now() WHERE key = $1`, [key]); // someone touched it after we looked
    const result = await resolveRecord(db, config, operator, key, input("complete", { expectedUpdatedAt: null }));
    expect(result).toMatchObject({ ok: false, code: "conflict", details: { current: { key, status: "in_progress" } } });
    if (result.ok) throw new Error("unreachable");
    const version = result.details?.current?.version ?? null;
    expect(version).toMatch(/\.\d{6}Z$/);
    expect(
      await resolveRecord(db, config, operator, key, input("complete", { expectedUpdatedAt: version })),
    ).toMatchObject({ ok: true });
  });

  it("a resolve racing the writer that completes the same row: the writer's response survives", async () => {
    const key = await stuckClaim({ taken: true });
    const writer = await pool.connect();
    try {
      // The writer's own completion (the reference writer's UPDATE), still uncommitted: it holds the row.
      await writer.query("BEGIN");
      await writer.query(REFERENCE_COMPLETE, [key, JSON.stringify({ from: "writer", receipt: "ch_writer" })]);
      const resolving = resolveRecord(db, config, operator, key, input("complete"));
      await waitForLockWaiters(pool, await backendPid(writer)); // the resolve has checked and now waits on the row lock
      await writer.query("COMMIT");
      expect(await resolving).toMatchObject({
        ok: false,
        code: "conflict",
        details: { current: { status: "completed" } },
      });
    } finally {
      writer.release();
    }
    expect((await row(key))?.response).toEqual({ from: "writer", receipt: "ch_writer" });
    expect(await auditRows(key)).toHaveLength(0);
  });

  it("20 concurrent resolves of one key: exactly 1 succeeds, 19 conflict, 1 audit row", async () => {
    const key = await stuckClaim({ taken: true });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => resolveRecord(db, config, operator, key, input("complete"))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.code === "conflict")).toHaveLength(19);
    expect(await auditRows(key)).toHaveLength(1);
  });
});
