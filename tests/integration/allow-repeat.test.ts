import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { withIdempotency, type GuardedCall } from "idem-guard";
import type { Actor } from "@/lib/identity/actor";
import { createToken } from "@/lib/auth/tokens";
import { readRowVersion } from "@/lib/records/visible-records";
import { allowRepeat } from "@/lib/resolve/allow-repeat";
import { countRepeatsInto } from "@/lib/repeats/count-repeats";
import { connectTestDb } from "../helpers/db";
import { startCountingUpstream, type CountingUpstream } from "../helpers/counting-upstream";
import { routeHandler } from "../helpers/api-routes";

// Issue #28 §6 end to end: the real guard (idem-guard) charges a counting processor; an operator
// ends the completed record's deduplication through the API route; the next identical call runs
// exactly once, and the one after is suppressed again. The counter is the assertion.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-allow-repeat-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify({ redact: ["$..card"] }));

const run = randomBytes(3).toString("hex");
const TENANT = `allow-${run}`;
const system: Actor = {
  kind: "system",
  id: "t",
  name: `allow-${run}`,
  displayName: "allow",
  role: "admin",
  tenants: [],
};

describe("allow a repeat: a completed call's key stops deduplicating, once, on purpose", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  let upstream: CountingUpstream;
  const tokens = { operator: "", viewer: "", support: "" };
  // Mid-bucket, in the past: every call below derives the same key (the reference 15 min window).
  const at = new Date(Math.floor(Date.now() / 900_000) * 900_000 + 1_000);

  beforeAll(async () => {
    upstream = await startCountingUpstream({ delayMs: 50 });
    tokens.operator = (await createToken(db, system, { name: `allow-op-${run}`, role: "operator" })).token;
    tokens.viewer = (await createToken(db, system, { name: `allow-viewer-${run}`, role: "viewer" })).token;
    tokens.support = (
      await createToken(db, system, { name: `allow-support-${run}`, role: "viewer", tenants: [TENANT] })
    ).token;
  });
  afterAll(async () => {
    await upstream.close();
    await pool.end();
  });

  const chargeCard = withIdempotency(
    {
      db: pool,
      tool: "charge_card",
      statusTool: "get_charge_status",
      noun: "A charge",
      upstream: "processor",
      clock: () => at,
    },
    async ({ key, args }) => {
      const response = await fetch(`${upstream.url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(args),
      });
      return (await response.json()) as Record<string, unknown>;
    },
  );
  const call = (amount: number): GuardedCall => ({
    tenant: TENANT,
    subject: "user_1",
    argumentsJson: JSON.stringify({ card: "c_77", amount_cents: amount }),
  });

  async function send(token: string, key: string, body: unknown, raw?: string) {
    const handler = await routeHandler("records/[key]/allow-repeat", "POST");
    const response = await handler(
      new Request(`http://console.test/api/v1/records/${encodeURIComponent(key)}/allow-repeat`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: raw ?? JSON.stringify(body),
      }),
      { params: Promise.resolve({ key }) },
    );
    type ErrorBody = { code: string; message: string; current?: unknown };
    return {
      status: response.status,
      body: (await response.json()) as { error: ErrorBody; auditId: string; before: unknown },
    };
  }
  const row = (key: string) => db.idempotency.findUnique({ where: { key } });
  const allowAudits = (key: string) => db.auditLog.count({ where: { key, action: "record.allow_repeat" } });

  it("executes, is suppressed, is allowed to repeat, executes exactly once more, is suppressed again", async () => {
    const first = await chargeCard(call(24_000));
    expect(first.outcome).toBe("executed");
    expect((await chargeCard(call(24_000))).outcome).toBe("replayed");
    expect(upstream.charges).toHaveLength(1);
    const key = first.key;
    const before = (await row(key))!;
    expect(before.status).toBe("completed");

    const version = await readRowVersion(db, system, key);
    const allowed = await send(tokens.operator, key, {
      reason: "ticket 5120: buys a second one",
      expectedUpdatedAt: version,
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(await row(key)).toBeNull();

    // The audit row holds the whole row as it was, with who and why.
    const entry = await db.auditLog.findUniqueOrThrow({ where: { id: BigInt(allowed.body.auditId) } });
    expect(entry).toMatchObject({
      action: "record.allow_repeat",
      key,
      tenant: TENANT,
      reason: "ticket 5120: buys a second one",
    });
    expect(entry.actor).toBe(`token:allow-op-${run}`);
    expect(entry.before).toMatchObject({
      key,
      tenant: TENANT,
      subject: "user_1",
      tool: "charge_card",
      status: "completed",
      response: before.response,
      createdAt: before.createdAt.toISOString(),
      version,
    });
    expect(allowed.body.before).toEqual(entry.before);

    const again = await chargeCard(call(24_000));
    expect(again.outcome).toBe("executed");
    expect(again.key).toBe(key);
    expect(upstream.charges).toHaveLength(2);
    expect((await chargeCard(call(24_000))).outcome).toBe("replayed");
    expect(upstream.charges).toHaveLength(2);
  });

  it("repeats served before the allowed repeat are still counted, timed from the audit snapshot", async () => {
    const tenant = `${TENANT}-counted`;
    const guarded = { ...call(41_000), tenant };
    const { key } = await chargeCard(guarded);
    expect((await chargeCard(guarded)).outcome).toBe("replayed");
    const version = await readRowVersion(db, system, key);
    expect((await allowRepeat(db, system, key, { reason: "ticket 8", expectedUpdatedAt: version })).ok).toBe(true);
    const range = { from: new Date(at.getTime() - 3_600_000), to: new Date(at.getTime() + 3_600_000) };
    const windows = { windows: {}, defaultWindowSeconds: 900, businessKeyTools: [] };
    await db.$transaction((tx) => countRepeatsInto(tx, range, windows));
    const [counted] = await db.$queryRaw<{ repeats: bigint }[]>`
      SELECT COALESCE(sum(repeats), 0)::bigint AS repeats FROM repeat_delay_hourly WHERE tenant = ${tenant} AND tool = 'charge_card'`;
    expect(Number(counted!.repeats)).toBe(1);
  });

  it("viewers and tenant-limited support are refused (403), in the route and inside the action; nothing changes", async () => {
    const { key } = await chargeCard(call(31_000));
    const version = await readRowVersion(db, system, key);
    for (const token of [tokens.viewer, tokens.support]) {
      const answer = await send(token, key, { reason: "not mine to allow", expectedUpdatedAt: version });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe("forbidden");
    }
    // The action checks the role itself: a caller that skips the route is refused too.
    const viewer: Actor = { ...system, kind: "user", name: `viewer-${run}@t`, role: "viewer" };
    const direct = await allowRepeat(db, viewer, key, { reason: "skipping the route", expectedUpdatedAt: version });
    expect(direct).toMatchObject({ ok: false, code: "forbidden" });
    expect((await row(key))?.status).toBe("completed");
    expect(await allowAudits(key)).toBe(0);
  });

  it("bad input is a 400 naming the field; nothing changes", async () => {
    const { key } = await chargeCard(call(32_000));
    const version = await readRowVersion(db, system, key);
    const cases: [string, unknown, string | undefined, RegExp][] = [
      [key, { expectedUpdatedAt: version }, undefined, /reason/],
      [key, { reason: "  ", expectedUpdatedAt: version }, undefined, /reason/],
      [key, { reason: "ticket 1" }, undefined, /expectedUpdatedAt/],
      [key, { reason: "ticket 1", expectedUpdatedAt: "yesterday" }, undefined, /expectedUpdatedAt/],
      [key, { reason: "ticket 1", expectedUpdatedAt: version, force: true }, undefined, /force/],
      [key, null, "not json", /JSON/i],
      ["%zz", { reason: "ticket 1", expectedUpdatedAt: version }, undefined, /key/i],
      [key.slice(0, 12), { reason: "ticket 1", expectedUpdatedAt: version }, undefined, /ref/],
    ];
    for (const [target, body, raw, field] of cases) {
      const answer = await send(tokens.operator, target, body, raw);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(JSON.stringify(answer.body.error)).toMatch(field);
    }
    expect((await row(key))?.status).toBe("completed");
    expect(await allowAudits(key)).toBe(0);
  });

  it("a record that is not completed is 409 not_completed; a stale version 409 conflict naming the row now; absent 404", async () => {
    const claim = "c".repeat(56) + run + "00";
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${claim}, ${TENANT}, 'charge_card', 'in_progress', now())`;
    const inProgress = await send(tokens.operator, claim, { reason: "ticket 2", expectedUpdatedAt: null });
    expect(inProgress.status).toBe(409);
    expect(inProgress.body.error.code).toBe("not_completed");
    expect(inProgress.body.error.message).toMatch(/in_progress, not completed/);
    expect((await row(claim))?.status).toBe("in_progress");

    const { key } = await chargeCard(call(33_000));
    const stale = await send(tokens.operator, key, {
      reason: "ticket 3",
      expectedUpdatedAt: "2000-01-01T00:00:00.000000Z",
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("conflict");
    expect(stale.body.error.current).toMatchObject({ key, status: "completed" });
    expect(stale.body.error.message).toMatch(/changed since you looked \(now completed/);
    expect((await row(key))?.status).toBe("completed");
    expect(await allowAudits(key)).toBe(0);

    const absent = await send(tokens.operator, "f".repeat(64), { reason: "ticket 4", expectedUpdatedAt: null });
    expect(absent.status).toBe(404);
  });

  it("the delete and its audit row are one transaction: an audit row that fails leaves the record in place", async () => {
    const { key } = await chargeCard(call(34_000));
    const version = await readRowVersion(db, system, key);
    const marker = `fail-audit-${run}`;
    await db.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION allow_repeat_fail_${run}() RETURNS trigger AS $$
      BEGIN IF NEW.reason = '${marker}' THEN RAISE EXCEPTION 'planted audit failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await db.$executeRawUnsafe(
      `CREATE TRIGGER allow_repeat_fail_${run} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION allow_repeat_fail_${run}()`,
    );
    try {
      const answer = await send(tokens.operator, key, { reason: marker, expectedUpdatedAt: version });
      expect(answer.status).toBeGreaterThanOrEqual(500);
      expect(answer.body.error.code).toBeTypeOf("string");
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER allow_repeat_fail_${run} ON audit_log`);
    }
    expect((await row(key))?.status).toBe("completed");
  });
});
