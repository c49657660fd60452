import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { writeAudit } from "@/lib/audit/write-audit";
import { parseConfig } from "@/lib/config/load";
import { withIdempotency, inFlightMessage, OutcomeUnknownError, REFERENCE_CLAIM, REFERENCE_COMPLETE } from "idem-guard";
import { explainKey, parseExplainParams } from "@/lib/records/explain-key";
import { lookUpRefs } from "@/lib/records/lookup";
import { getRecordDetail } from "@/lib/records/record-detail";
import { revealResponse } from "@/lib/records/reveal-response";
import { checkRecord } from "@/lib/resolve/check-record-with-processor";
import { connectTestDb } from "../helpers/db";

const run = randomBytes(3).toString("hex");
const ACME = `ld-acme-${run}`;
const GLOBEX = `ld-globex-${run}`;
const config = parseConfig(
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m" } }, redact: ["$..card", "$..email"] }),
);

const actor = (role: Actor["role"], tenants: string[] = []): Actor => ({
  kind: "user",
  id: `${role}-${run}`,
  name: `${role}@test`,
  displayName: role,
  role,
  tenants,
});
const viewer = actor("viewer");
const operator = actor("operator");
const acmeOnly = actor("viewer", [ACME]);

describe("lookup and record detail against PostgreSQL, rows written by the real guard", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  afterAll(() => pool.end());
  const lookUp = (reader: Actor, text: string) => lookUpRefs(db, reader, text, config);

  function chargeCard(at: Date, outcome: "ok" | "timeout" = "ok") {
    return withIdempotency(
      { db: pool, tool: "charge_card", statusTool: "get_charge_status", noun: "A charge", clock: () => at },
      async ({ key }) => {
        if (outcome === "timeout") throw new OutcomeUnknownError("processor timeout", 30_000);
        return {
          id: `ch_${run}`,
          status: "succeeded",
          amount_cents: 24_000,
          card: "c_71",
          customer: { email: "ann@example.com" },
          reference: key,
        };
      },
    );
  }
  const call = (tenant: string, amount: number) => ({
    tenant,
    subject: "user_1",
    argumentsJson: JSON.stringify({ amount_cents: amount, card: "c_71" }),
  });

  it("the guard's in-flight message leads to its record, whose detail says what a repeat caller gets now", async () => {
    // A minute into a 15-minute bucket 20–35 minutes ago: the repeat 30 s later derives the same key.
    const claimedAt = new Date(Math.floor((Date.now() - 20 * 60_000) / 900_000) * 900_000 + 60_000);
    const first = await chargeCard(claimedAt, "timeout")(call(ACME, 1_001));
    const repeat = await chargeCard(new Date(claimedAt.getTime() + 30_000))(call(ACME, 1_001));
    expect(first.outcome).toBe("outcome_unknown");
    expect(repeat.outcome).toBe("in_flight");
    if (repeat.outcome !== "in_flight") return;

    const found = await lookUp(viewer, `"${repeat.message}"`);
    expect(found.kind === "searched" && found.matches.map((m) => m.key)).toEqual([repeat.key]);

    const detail = await getRecordDetail(db, config, viewer, repeat.key, new Date());
    expect(detail).not.toBeNull();
    if (!detail) return;
    expect(detail.record).toMatchObject({
      key: repeat.key,
      ref: repeat.ref,
      tenant: ACME,
      subject: "user_1",
      tool: "charge_card",
      status: "in_progress",
    });
    expect(detail.stuck).toMatchObject({ isStuck: true, threshold: "5m", source: "stuckAfter of tool charge_card" });
    // What the guard told the second caller is exactly what the page says a repeat gets now.
    expect(detail.repeatCaller).toEqual({
      kind: "in_flight",
      message: repeat.message,
      statusTool: { name: "get_charge_status", source: "convention" },
    });
    expect(detail.repeatCaller.kind === "in_flight" && detail.repeatCaller.message).toBe(
      inFlightMessage("A charge", repeat.ref, "get_charge_status"),
    );
    expect(detail.timeline.map((t) => t.kind)).toEqual(["claim", "outcome_unknown", "in_flight_rejected"]);
    expect(detail.eventCounts).toEqual({ outcome_unknown: 1, in_flight_rejected: 1 });
    expect(detail.response.present).toBe(false);
    // The guard records the arguments' hash; the key stops deduplicating at its bucket's end.
    const canonical = '{"amount_cents":1001,"card":"c_71"}';
    expect(detail.argumentsSha256).toBe(createHash("sha256").update(canonical).digest("hex"));
    const bucketEnd = new Date(Math.floor(claimedAt.getTime() / 900_000) * 900_000 + 900_000);
    expect(detail.protection).toEqual({
      kind: "bucket",
      windowMs: 900_000,
      windowSource: "default",
      bucketStart: new Date(bucketEnd.getTime() - 900_000).toISOString(),
      until: bucketEnd.toISOString(),
      ended: true,
    });
    // The repeat arrived 30 s after the claim: around a timeout.
    expect(detail.timeline.find((t) => t.kind === "in_flight_rejected")?.delay).toEqual({
      ms: 30_000,
      band: "around_timeout",
    });
    expect(detail.timeline.find((t) => t.kind === "outcome_unknown")?.delay).toBeUndefined();
  });

  it("a business-key tool's key holds until the row is trimmed; a reference writer's row records no hash", async () => {
    const bkConfig = parseConfig(JSON.stringify({ tools: { create_shipment: { businessKey: true } } }));
    const at = new Date(Date.now() - 5 * 60_000);
    const shipped = await withIdempotency(
      { db: pool, tool: "create_shipment", statusTool: "get_shipment_status", businessKey: () => `order-${run}` },
      async () => ({ tracking: "trk_1" }),
    )({ tenant: ACME, subject: null, argumentsJson: '{"order_id":"o_1"}' });
    const detail = await getRecordDetail(db, bkConfig, viewer, shipped.key, new Date());
    expect(detail?.protection).toEqual({
      kind: "business_key",
      until: null,
      trimmedAfter: expect.any(String) as string,
    });

    // The reference text's statements verbatim: no tool, no subject, no hash, no events.
    const key = createHash("sha256").update(`ref-writer-${run}`).digest("hex");
    await pool.query(REFERENCE_CLAIM, [key, ACME]);
    await pool.query(REFERENCE_COMPLETE, [key, JSON.stringify({ id: "ch_ref" })]);
    const plain = await getRecordDetail(db, config, viewer, key, at);
    expect(plain?.argumentsSha256).toBeNull();
    expect(plain?.eventCounts).toBeNull();
    expect(plain?.protection).toMatchObject({ kind: "bucket", windowSource: "default", ended: false });
  });

  it("a completed record replays its response, redacted for every role; an operator's reveal shows it whole and is audited", async () => {
    const at = new Date(Date.now() - 60_000);
    const executed = await chargeCard(at)(call(ACME, 2_002));
    await chargeCard(at)(call(ACME, 2_002));
    await writeAudit(db, operator, {
      action: "record.note",
      key: executed.key,
      tenant: ACME,
      reason: "customer asked",
      after: { card: "c_71" },
    });

    const forViewer = await getRecordDetail(db, config, viewer, executed.key, new Date());
    const forOperator = await getRecordDetail(db, config, operator, executed.key, new Date());
    if (!forViewer || !forOperator) throw new Error("record not found");
    expect(forViewer.response).toMatchObject({
      present: true,
      redacted: true,
      redactedPaths: ["$['card']", "$['customer']['email']"],
    });
    expect(forViewer.response.value).toMatchObject({
      card: "[redacted]",
      customer: { email: "[redacted]" },
      amount_cents: 24_000,
    });
    expect(forViewer.repeatCaller).toMatchObject({ kind: "replay", response: { card: "[redacted]" } });
    expect(forViewer.audit).toHaveLength(1);
    expect(forViewer.audit[0]).toMatchObject({
      action: "record.note",
      actor: "operator@test",
      after: { card: "[redacted]" },
    });
    expect(forOperator.response).toEqual(forViewer.response);

    const auditCount = () => db.auditLog.count({ where: { key: executed.key } });
    expect(await revealResponse(db, config, viewer, executed.key, { reason: "curious" })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(
      await revealResponse(db, config, actor("operator", [GLOBEX]), executed.key, { reason: "ticket 1" }),
    ).toMatchObject({ ok: false, code: "not_found" });
    expect(await auditCount()).toBe(1);
    const revealed = await revealResponse(db, config, operator, executed.key, { reason: "ticket 4411: which card?" });
    expect(revealed).toMatchObject({
      ok: true,
      response: { card: "c_71", customer: { email: "ann@example.com" } },
      revealedPaths: ["$['card']", "$['customer']['email']"],
    });
    const [reveal] = await db.auditLog.findMany({ where: { key: executed.key, action: "record.reveal" } });
    expect(reveal).toMatchObject({
      actor: "operator@test",
      actorRole: "operator",
      tenant: ACME,
      reason: "ticket 4411: which card?",
      evidence: { revealedPaths: ["$['card']", "$['customer']['email']"] },
    });
    expect(JSON.stringify(reveal, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toContain("c_71"); // the audit row names the paths, never the values
    expect(forViewer.timeline.map((t) => t.kind)).toEqual(["claim", "completed", "replay_served", "operator"]);
    expect(forViewer.stuck.isStuck).toBe(false);
  });

  it("two keys sharing a ref (a forced 48-bit collision) are both returned; a full key picks one", async () => {
    const ref = randomBytes(6).toString("hex");
    const keyA = ref + "a".repeat(52);
    const keyB = ref + "b".repeat(52);
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES
       ($1, $3, 'u1', 'charge_card', 'completed', now() - interval '2 hours'), ($2, $4, 'u2', 'create_shipment', 'in_progress', now())`,
      [keyA, keyB, ACME, GLOBEX],
    );
    const both = await lookUp(viewer, `ref ${ref.toUpperCase()}`);
    expect(both.kind === "searched" && both.matches.map((m) => [m.key, m.tenant, m.tool])).toEqual([
      [keyB, GLOBEX, "create_shipment"],
      [keyA, ACME, "charge_card"],
    ]);
    const one = await lookUp(viewer, `(${keyA})`);
    expect(one.kind === "searched" && one.matches.map((m) => m.key)).toEqual([keyA]);
    // A tenant-limited viewer sees only their tenant's record behind the shared ref.
    const scoped = await lookUp(acmeOnly, ref);
    expect(scoped.kind === "searched" && scoped.matches.map((m) => m.key)).toEqual([keyA]);
  });

  it("another tenant's record is not found everywhere for a tenant-limited user: lookup, detail, check, explainer", async () => {
    const at = new Date();
    const theirs = await chargeCard(at)(call(GLOBEX, 3_003));
    const lookup = await lookUp(acmeOnly, `ref ${theirs.ref}`);
    expect(lookup.kind === "searched" && lookup.matches).toEqual([]);
    expect(lookup.kind === "searched" && lookup.whyMissing.join(" ")).toMatch(
      `a tenant you cannot see: you see ${ACME} only`,
    );
    // No trace of it either: its events belong to a tenant this user cannot see.
    expect(lookup.kind === "searched" && lookup.misses).toEqual([
      { ref: theirs.ref, fate: "never_seen", released: [], trimmed: [], events: null, lastAudit: null },
    ]);
    expect(await getRecordDetail(db, config, acmeOnly, theirs.key, new Date())).toBeNull();
    expect(await checkRecord(db, config, acmeOnly, theirs.key)).toBeNull();

    const params = {
      tenant: GLOBEX,
      subject: "user_1",
      tool: "charge_card",
      args: '{"amount_cents":3003,"card":"c_71"}',
      at: at.toISOString(),
    };
    const input = parseExplainParams(params, new Date());
    if (!input.ok) throw new Error(JSON.stringify(input.errors));
    const hidden = await explainKey(db, acmeOnly, input.input);
    const visible = await explainKey(db, viewer, input.input);
    if (!hidden.ok || !visible.ok) throw new Error("explain failed");
    expect(visible.explanation.derived.key).toBe(theirs.key);
    expect(visible.explanation.buckets.find((b) => b.position === "same")?.records?.map((r) => r.key)).toEqual([
      theirs.key,
    ]);
    // Not looked up at all, rather than "no record" in each bucket: the tenant is not theirs.
    expect(hidden.explanation.buckets.map((b) => b.records)).toEqual([null, null, null]);
    expect(hidden.explanation.recordsError).toEqual({
      code: "unknown_tenant",
      message: `no tenant '${GLOBEX}' among yours`,
    });
  });

  it("the explainer finds the same call 14 minutes earlier in the previous bucket", async () => {
    const window = 900;
    // 2 minutes into a bucket, so 14 minutes earlier is in the previous one.
    const bucketStart = (Math.floor(Date.now() / 1000 / window) - 4) * window * 1000;
    const now = new Date(bucketStart + 2 * 60_000);
    const earlier = new Date(now.getTime() - 14 * 60_000);
    const before = await chargeCard(earlier)(call(ACME, 4_004));
    const current = await chargeCard(now)(call(ACME, 4_004));
    expect(before.key).not.toBe(current.key);

    const input = parseExplainParams(
      {
        tenant: ACME,
        subject: "user_1",
        tool: "charge_card",
        args: '{"card": "c_71", "amount_cents": 4004}',
        at: now.toISOString(),
        window: "15m",
      },
      new Date(),
    );
    if (!input.ok) throw new Error(JSON.stringify(input.errors));
    const result = await explainKey(db, viewer, input.input);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const byPosition = Object.fromEntries(
      result.explanation.buckets.map((b) => [b.position, (b.records ?? []).map((r) => [r.key, r.offsetMs])]),
    );
    expect(byPosition).toEqual({ previous: [[before.key, -14 * 60_000]], same: [[current.key, 0]], next: [] });
    expect(result.explanation.derived.canonical).toBe('{"amount_cents":4004,"card":"c_71"}');
  });

  it("a ref with no row says why: events outlive a deleted row, the audit log remembers a release", async () => {
    const trimmed = await chargeCard(new Date())(call(ACME, 5_005));
    await chargeCard(new Date())(call(ACME, 5_005)); // a replay event
    const released = await chargeCard(new Date())(call(ACME, 5_006));
    await writeAudit(db, operator, {
      action: "record.release",
      key: released.key,
      tenant: ACME,
      reason: "processor: not found",
    });
    await pool.query(`DELETE FROM idempotency WHERE key = ANY($1)`, [[trimmed.key, released.key]]);

    const result = await lookUp(viewer, `ref ${trimmed.ref}, ref ${released.ref}`);
    if (result.kind !== "searched") throw new Error(result.kind);
    expect(result.matches).toEqual([]);
    const why = result.whyMissing.join("\n");
    expect(why).toContain(`${trimmed.ref}: writers recorded 1 event(s) for it`);
    expect(why).toContain(`${released.ref}: released by operator@test at `);
    expect(why).toContain(`Never seen: ${trimmed.ref}`); // deleted by hand: no release and no trim recorded it
    expect(why).not.toContain(`Never seen: ${trimmed.ref}, ${released.ref}`);
    expect(why).toMatch(/never existed/);
    expect(why).not.toMatch(/tenant you cannot see/); // this viewer sees every tenant
  });

  it("a record's events: up to 200 listed, counted from the list when it is whole and counted in full when it is not", async () => {
    const eventCounts = async (replays: number, rejections: number) => {
      const key = randomBytes(32).toString("hex");
      await pool.query(
        `INSERT INTO idempotency (key, tenant, tool, status) VALUES ($1, $2, 'charge_card', 'in_progress')`,
        [key, ACME],
      );
      await pool.query(
        `INSERT INTO idempotency_event (key, tenant, tool, kind, at)
         SELECT $1, $2, 'charge_card', CASE WHEN g <= $3 THEN 'replay_served' ELSE 'in_flight_rejected' END,
                now() - interval '1 hour' + g * interval '1 second'
         FROM generate_series(1, $3::int + $4::int) AS g`,
        [key, ACME, replays, rejections],
      );
      const detail = await getRecordDetail(db, config, viewer, key, new Date());
      return {
        counts: detail?.eventCounts,
        truncated: detail?.eventsTruncated,
        listed: detail?.timeline.filter((t) => t.kind !== "claim").length,
      };
    };
    expect(await eventCounts(150, 50)).toEqual({
      counts: { replay_served: 150, in_flight_rejected: 50 },
      truncated: false,
      listed: 200,
    });
    expect(await eventCounts(150, 51)).toEqual({
      counts: { replay_served: 150, in_flight_rejected: 51 },
      truncated: true,
      listed: 200,
    });
  });

  it("text without a ref and oversized text get messages, not errors", async () => {
    expect(await lookUp(viewer, "my card was charged twice!")).toMatchObject({ kind: "no_refs" });
    expect(await lookUp(viewer, "a".repeat(10_001))).toMatchObject({
      kind: "invalid",
      message: expect.stringMatching(/at most 10,000/),
    });
  });

  it('the ref look-up is a range scan on the primary key (COLLATE "C"), not a table scan', async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // The table here is tiny, so the planner would rightly scan it: forbid that to ask whether the index *can* serve the range.
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows } = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT key, tenant FROM idempotency WHERE key >= $1 AND key < $2 ORDER BY key LIMIT 21`,
        ["3f9a1c2b7d4e", "3f9a1c2b7d4eg"],
      );
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).toMatch(/Index (Only )?Scan using idempotency_pkey|Bitmap Index Scan on idempotency_pkey/);
      expect(plan).toMatch(/Index Cond: \(\(key >= '3f9a1c2b7d4e'::text\) AND \(key < '3f9a1c2b7d4eg'::text\)\)/);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });
});
