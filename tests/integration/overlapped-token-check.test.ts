import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { backendPid, waitForLockWaiters } from "../helpers/lock-waiters";
import { systemAdmin } from "../helpers/system-admin";

// Issue #31, item 2: a read-only route's read starts beside its token check. These hold the check
// back with a lock on api_token and show what may and may not come out while it waits.
process.env.DATABASE_URL = inject("databaseUrl");

const { GET: lookup } = await import("@/app/api/v1/lookup/route");
const { GET: record } = await import("@/app/api/v1/records/[key]/route");
const { apiRoute } = await import("@/lib/api/api-route");
const { lookupContract } = await import("@/lib/api/contracts/records");
const { lookUpRefs } = await import("@/lib/records/lookup");
const { getDb } = await import("@/lib/db/client");

// A read-only route whose read does not carry its check (as the lookup does where it reads a
// replica): the overlap alone, which both routes fall back to.
const uncarried = apiRoute(
  lookupContract.action,
  async ({ request, actor }) =>
    Response.json(await lookUpRefs(getDb(), actor, new URL(request.url).searchParams.get("q") ?? "", { redact: [] })),
  { readOnly: true },
);

const run = randomBytes(3).toString("hex");
const TENANT = `overlap-${run}`;
const OTHER = `overlap-other-${run}`;
const system = systemAdmin("overlap-test", { displayName: "t" });

describe("a read started beside the token check", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 3 });
  afterAll(() => pool.end());
  const mine = run.padEnd(12, "0") + "3".repeat(52);
  const theirs = run.padEnd(12, "0") + "4".repeat(52);
  const q = encodeURIComponent(`already in progress (ref ${mine.slice(0, 12)}).`);
  const none = { params: Promise.resolve({} as Record<string, never>) };
  const get = (url: string, token: string) =>
    new Request(`http://console.test${url}`, { headers: { authorization: `Bearer ${token}` } });
  const matchesOf = async (response: Response) =>
    ((await response.json()) as { matches: { key: string }[] }).matches.map((m) => m.key).sort();

  beforeAll(async () => {
    await db.idempotency.createMany({
      data: [
        { key: mine, tenant: TENANT, tool: "charge_card", status: "in_progress" },
        { key: theirs, tenant: OTHER, tool: "charge_card", status: "completed", response: { ok: true } },
      ],
    });
  });

  /** Runs `body` while a transaction holds api_token (and `alsoLock`) against every read; commits after. */
  async function whileTokensLocked(alsoLock: string[], body: (holder: number, tx: pg.PoolClient) => Promise<void>) {
    const tx = await pool.connect();
    try {
      await tx.query("BEGIN");
      await tx.query(`LOCK TABLE ${["api_token", ...alsoLock].join(", ")} IN ACCESS EXCLUSIVE MODE`);
      await body(await backendPid(tx), tx);
      await tx.query("COMMIT");
    } catch (error) {
      await tx.query("ROLLBACK");
      throw error;
    } finally {
      tx.release();
    }
  }

  it("starts the read while the check waits, and answers only when the check has passed", async () => {
    const { token } = await createToken(db, system, { name: `overlap-a-${run}`, role: "viewer", tenants: [TENANT] });
    expect(await matchesOf(await uncarried(get(`/api/v1/lookup?q=${q}`, token), none))).toEqual([mine]);
    let answered = false;
    let pending: Promise<Response> | null = null;
    // The lookup reads idempotency: with it locked too, the check and the read wait at the same time.
    await whileTokensLocked(["idempotency"], async (holder) => {
      pending = uncarried(get(`/api/v1/lookup?q=${q}`, token), none);
      void pending.then(() => (answered = true));
      await waitForLockWaiters(pool, holder, 2);
      expect(answered).toBe(false);
    });
    const response = await pending!;
    expect(response.status).toBe(200);
    expect(await matchesOf(response)).toEqual([mine]);
  });

  /** The statements of the backends `holder` blocks, as pg_stat_activity has them. */
  async function blockedStatements(holder: number): Promise<string[]> {
    const { rows } = await pool.query<{ query: string }>(
      `SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1::int = ANY (pg_blocking_pids(pid))`,
      [holder],
    );
    return rows.map((row) => row.query);
  }

  /** Waits for the token's first use to be written: that update is not awaited, and would wait on the lock too. */
  async function untilUseRecorded(tokenId: string) {
    for (let tries = 0; tries < 200; tries++) {
      const { rows } = await pool.query("SELECT 1 FROM api_token WHERE id = $1 AND last_used_at IS NOT NULL", [
        tokenId,
      ]);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`token ${tokenId}: its use was never recorded`);
  }

  /** Sends `call` while api_token is locked: the statements it blocks then, and its answer once unlocked. */
  async function blockedWhileTokensLocked(tokenId: string, call: () => Promise<Response>) {
    await untilUseRecorded(tokenId);
    let pending: Promise<Response> | null = null;
    let blocked: string[] = [];
    await whileTokensLocked([], async (holder) => {
      pending = call();
      await waitForLockWaiters(pool, holder, 1);
      // A check of its own would be a second statement, and the read would not need api_token at all.
      await new Promise((resolve) => setTimeout(resolve, 200));
      blocked = await blockedStatements(holder);
    });
    return { blocked, response: await pending! };
  }

  it("the record detail's read carries its token check: one statement reads the row and the token", async () => {
    const { token, summary } = await createToken(db, system, {
      name: `overlap-d-${run}`,
      role: "viewer",
      tenants: [TENANT],
    });
    const detail = () => record(get(`/api/v1/records/${mine}`, token), { params: Promise.resolve({ key: mine }) });
    expect((await detail()).status).toBe(200);
    const { blocked, response } = await blockedWhileTokensLocked(summary.id, detail);
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toContain("idempotency_event");
    expect(blocked[0]).toContain("api_token");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { record: { key: string } }).record.key).toBe(mine);
  });

  it("the lookup's read carries its token check: one statement reads the matches and the token", async () => {
    const { token, summary } = await createToken(db, system, {
      name: `overlap-g-${run}`,
      role: "viewer",
      tenants: [TENANT],
    });
    const find = () => lookup(get(`/api/v1/lookup?q=${q}`, token), none);
    expect(await matchesOf(await find())).toEqual([mine]);
    const { blocked, response } = await blockedWhileTokensLocked(summary.id, find);
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toContain("idempotency");
    expect(blocked[0]).toContain("api_token");
    expect(response.status).toBe(200);
    expect(await matchesOf(response)).toEqual([mine]);
  });

  it("a token revoked while its carried read waits is refused, and the record is not in the answer", async () => {
    const { token, summary } = await createToken(db, system, {
      name: `overlap-e-${run}`,
      role: "viewer",
      tenants: [TENANT],
    });
    const detail = () => record(get(`/api/v1/records/${mine}`, token), { params: Promise.resolve({ key: mine }) });
    expect((await detail()).status).toBe(200);
    let pending: Promise<Response> | null = null;
    await whileTokensLocked([], async (holder, tx) => {
      await tx.query("UPDATE api_token SET revoked_at = now() WHERE id = $1", [summary.id]);
      pending = detail();
      await waitForLockWaiters(pool, holder, 1);
    });
    const refused = await pending!;
    expect(refused.status).toBe(401);
    const body = await refused.text();
    expect(body).toMatch(/revoked/);
    expect(body).not.toContain(mine);
    // The refusal is audited as a separate check's would be.
    const denied = await pool.query(
      `SELECT 1 FROM audit_log WHERE action = 'access.denied' AND actor = $1 AND reason LIKE '%revoked%'`,
      [`token:${summary.prefix}`],
    );
    expect(denied.rowCount).toBeGreaterThan(0);
  });

  it("a token whose tenants changed gets the record detail as the actor its carried check found", async () => {
    const { token, summary } = await createToken(db, system, {
      name: `overlap-f-${run}`,
      role: "viewer",
      tenants: [TENANT],
    });
    const detail = (key: string) => record(get(`/api/v1/records/${key}`, token), { params: Promise.resolve({ key }) });
    expect((await detail(mine)).status).toBe(200);
    await pool.query("UPDATE api_token SET tenants = $2 WHERE id = $1", [summary.id, [OTHER]]);
    // Started as the remembered actor (TENANT), whose read finds the record: the check says OTHER only.
    expect((await detail(mine)).status).toBe(404);
    expect((await detail(theirs)).status).toBe(200);
  });

  it("a token revoked while its check waits is refused, though the read it started had its answer", async () => {
    const { token, summary } = await createToken(db, system, {
      name: `overlap-b-${run}`,
      role: "viewer",
      tenants: [TENANT],
    });
    expect(await matchesOf(await uncarried(get(`/api/v1/lookup?q=${q}`, token), none))).toEqual([mine]);
    let pending: Promise<Response> | null = null;
    await whileTokensLocked([], async (holder, tx) => {
      await tx.query("UPDATE api_token SET revoked_at = now() WHERE id = $1", [summary.id]);
      pending = uncarried(get(`/api/v1/lookup?q=${q}`, token), none);
      await waitForLockWaiters(pool, holder, 1);
      // The started read needs no api_token row: it has finished by the time the check may go on.
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    const refused = await pending!;
    expect(refused.status).toBe(401);
    const body = await refused.text();
    expect(body).toMatch(/revoked/);
    expect(body).not.toContain(mine);
  });

  it("a token whose tenants changed gets the read as the actor its check found", async () => {
    const { token, summary } = await createToken(db, system, {
      name: `overlap-c-${run}`,
      role: "viewer",
      tenants: [TENANT],
    });
    expect(await matchesOf(await uncarried(get(`/api/v1/lookup?q=${q}`, token), none))).toEqual([mine]);
    await pool.query("UPDATE api_token SET tenants = $2 WHERE id = $1", [summary.id, [OTHER]]);
    expect(await matchesOf(await uncarried(get(`/api/v1/lookup?q=${q}`, token), none))).toEqual([theirs]);
    await pool.query("UPDATE api_token SET tenants = '{}', role = 'operator' WHERE id = $1", [summary.id]);
    expect(await matchesOf(await uncarried(get(`/api/v1/lookup?q=${q}`, token), none))).toEqual([mine, theirs].sort());
  });

  it("a carrier asked by a read on another database than the primary carries nothing", async () => {
    const { TokenCheckCarrier } = await import("@/lib/auth/carried-token-check");
    const { getDb } = await import("@/lib/db/client");
    const carrier = new TokenCheckCarrier("0".repeat(64), getDb());
    // A replica could lag a revocation: the read there gets a null column and the request its own check.
    expect(carrier.column(db).text).toBe("NULL::json");
    carrier.settle(db, null);
    expect(carrier.row).toBeUndefined();
    expect(carrier.column(getDb()).text).toContain("api_token");
  });
});
