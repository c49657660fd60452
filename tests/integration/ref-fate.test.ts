import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { createToken } from "@/lib/auth/tokens";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { lookUpRefs, type LookupResult } from "@/lib/records/lookup";
import { resolveRecord } from "@/lib/resolve/resolve-record";
import { allowRepeat } from "@/lib/resolve/allow-repeat";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The API route reads its configuration from IDEM_CONFIG: the same masking as the direct calls.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-fate-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify({ redact: ["$..card"] }));
const { GET: lookupRoute } = await import("@/app/api/v1/lookup/route");

const run = randomBytes(3).toString("hex");
const ACME = `fate-acme-${run}`;
const GLOBEX = `fate-globex-${run}`;
const actor = (role: Actor["role"], tenants: string[] = []): Actor => ({
  kind: "user",
  id: `${role}-${run}`,
  name: `${role}-${run}@fate.test`,
  displayName: role,
  role,
  tenants,
});
const operator = actor("operator");
const viewer = actor("viewer");
const acmeOnly = actor("viewer", [ACME]);
const system = systemAdmin(`fate-${run}`, { displayName: "fate" });

type Searched = Extract<LookupResult, { kind: "searched" }>;

describe("what happened to a ref no longer in the table: released, or never seen", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  let processor: DemoUpstream;
  let config: IdemConfig;
  let n = 0;

  beforeAll(async () => {
    processor = await startDemoProcessor();
    config = parseConfig(
      JSON.stringify({
        tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } },
        redact: ["$..card"],
      }),
    );
  });
  afterAll(async () => {
    await processor.stop();
    await pool.end();
  });

  /** A claim stuck for an hour that the processor never took: the resolve path may release it. */
  async function stuckClaim(tenant: string): Promise<string> {
    n += 1;
    const key = createHash("sha256").update(`fate|${run}|${n}`).digest("hex");
    // A writer may leave a partial response on a claim; the snapshot keeps it, masked.
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at) VALUES ($1, $2, 'user_1', 'charge_card', 'in_progress', $3, now() - interval '1 hour')`,
      [key, tenant, { card: "4242424242424242", attempt: 1 }],
    );
    return key;
  }
  async function release(key: string, reason: string) {
    const outcome = await resolveRecord(db, config, operator, key, {
      action: "release",
      reason,
      expectedUpdatedAt: null,
    });
    if (!outcome.ok) throw new Error(outcome.message);
    return outcome;
  }
  async function searched(reader: Actor, text: string): Promise<Searched> {
    const result = await lookUpRefs(db, reader, text, config);
    if (result.kind !== "searched") throw new Error(result.kind);
    return result;
  }

  it("a claim released through the resolve path is found in the audit log: who, when, why, the masked snapshot, the entry", async () => {
    const key = await stuckClaim(ACME);
    const released = await release(key, "processor has no charge for this reference");
    const ref = key.slice(0, 12);

    for (const text of [`Charge failed (ref ${ref})`, key]) {
      const result = await searched(viewer, text);
      expect(result.matches).toEqual([]);
      expect(result.misses).toHaveLength(1);
      const miss = result.misses[0]!;
      expect(miss.fate).toBe("released");
      expect(miss.trimmed).toEqual([]);
      expect(miss.released).toEqual([
        {
          auditId: released.auditId,
          at: expect.any(String),
          actor: operator.name,
          actorRole: "operator",
          action: "record.release",
          forced: false,
          repeatAllowed: false,
          key,
          tenant: ACME,
          reason: "processor has no charge for this reference",
          snapshot: expect.objectContaining({
            key,
            tenant: ACME,
            tool: "charge_card",
            status: "in_progress",
            response: { card: "[redacted]", attempt: 1 },
          }),
          redactedPaths: ["$['response']['card']"],
        },
      ]);
      expect(JSON.stringify(result)).not.toContain("4242424242424242");
      // The answer is the fact, not the list of guesses.
      // A pasted key is named whole; a ref as pasted.
      expect(result.whyMissing).toEqual([
        expect.stringContaining(`${text === key ? key : ref}: released by ${operator.name} at `),
      ]);
      expect(result.whyMissing[0]).toContain(`(audit entry ${released.auditId})`);
      expect(result.whyMissing.join(" ")).not.toMatch(/never existed|Never seen/);
      expect(result.unseen).toBeNull();
    }
  });

  it("a completed record an operator allowed to repeat: fate repeat_allowed, its completed snapshot masked", async () => {
    n += 1;
    const key = createHash("sha256").update(`fate-repeat|${run}|${n}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at) VALUES ($1, $2, 'user_1', 'charge_card', 'completed', $3, now() - interval '1 hour')`,
      [key, ACME, { id: "ch_9", card: "4242424242424242" }],
    );
    const allowed = await allowRepeat(db, operator, key, {
      reason: "ticket 7: buys a second one",
      expectedUpdatedAt: null,
    });
    if (!allowed.ok) throw new Error(allowed.message);
    const miss = (await searched(viewer, `ref ${key.slice(0, 12)}`)).misses[0]!;
    expect(miss.fate).toBe("repeat_allowed");
    expect(miss.released).toEqual([
      expect.objectContaining({
        auditId: allowed.auditId,
        action: "record.allow_repeat",
        forced: false,
        repeatAllowed: true,
        reason: "ticket 7: buys a second one",
        snapshot: expect.objectContaining({ status: "completed", response: { id: "ch_9", card: "[redacted]" } }),
      }),
    ]);
    expect(JSON.stringify(miss)).not.toContain("4242424242424242");
  });

  it("another tenant's released ref is never seen by a tenant-limited reader, exactly like a random ref", async () => {
    const theirs = await stuckClaim(GLOBEX);
    await release(theirs, "not taken");
    const ref = theirs.slice(0, 12);
    const ghost = randomBytes(6).toString("hex");

    expect((await searched(viewer, `ref ${ref}`)).misses[0]?.fate).toBe("released"); // the entry is there to leak
    const hidden = await searched(acmeOnly, `ref ${ref}`);
    const random = await searched(acmeOnly, `ref ${ghost}`);
    expect(hidden.misses).toEqual([
      { ref, fate: "never_seen", released: [], trimmed: [], events: null, lastAudit: null },
    ]);
    expect(JSON.stringify(hidden).replaceAll(ref, "REF")).toBe(JSON.stringify(random).replaceAll(ghost, "REF"));
    expect(hidden.whyMissing.join(" ")).toContain(
      `Never seen: ${ref} — no row, no release and no trim in the last 30 days in your tenants.`,
    );
  });

  it("a random ref is never seen, and the possibilities say how far back trims are known", async () => {
    const ghost = randomBytes(6).toString("hex");
    const result = await searched(viewer, `ref ${ghost}`);
    expect(result.misses).toEqual([
      { ref: ghost, fate: "never_seen", released: [], trimmed: [], events: null, lastAudit: null },
    ]);
    const why = result.whyMissing.join("\n");
    expect(why).toContain(`Never seen: ${ghost} — no row, no release and no trim in the last 30 days.`);
    expect(why).toMatch(/never existed/);
    expect(why).toMatch(/trimmed more than 30 days ago/);
    // The page's shape of the same: the refs once (its heading says "never seen"), then only the possibilities.
    expect(result.unseen).toMatchObject({ refs: [ghost], traces: [], days: 30, inYourTenants: false });
    expect(result.unseen!.possibilities).toEqual(result.whyMissing.slice(1));
    expect(result.unseen!.possibilities.join("\n")).not.toMatch(/never seen/i);
  });

  it("GET /api/v1/lookup answers with the fate, tenant-limited by the token", async () => {
    const key = await stuckClaim(ACME);
    const released = await release(key, "customer cancelled; processor: not taken");
    const theirs = await stuckClaim(GLOBEX);
    await release(theirs, "not taken");
    const all = (await createToken(db, system, { name: `fate-all-${run}`, role: "viewer" })).token;
    const limited = (await createToken(db, system, { name: `fate-acme-${run}`, role: "viewer", tenants: [ACME] }))
      .token;
    const get = async (text: string, token: string) => {
      const response = await lookupRoute(
        new Request(`http://console.test/api/v1/lookup?q=${encodeURIComponent(text)}`, {
          headers: { authorization: `Bearer ${token}` },
        }),
        { params: Promise.resolve({}) },
      );
      return { status: response.status, body: (await response.json()) as Omit<Searched, "kind"> };
    };
    const mine = await get(`ref ${key.slice(0, 12)}, ref ${theirs.slice(0, 12)}`, limited);
    expect(mine.status).toBe(200);
    expect(mine.body.misses.map((m) => [m.ref, m.fate])).toEqual([
      [key.slice(0, 12), "released"],
      [theirs.slice(0, 12), "never_seen"],
    ]);
    expect(mine.body.misses[0]?.released[0]).toMatchObject({
      auditId: released.auditId,
      actor: operator.name,
      reason: "customer cancelled; processor: not taken",
      snapshot: { response: { card: "[redacted]" } },
    });
    expect(JSON.stringify(mine.body)).not.toContain(GLOBEX);
    const everyone = await get(`ref ${theirs.slice(0, 12)}`, all);
    expect(everyone.body.misses[0]).toMatchObject({ fate: "released", released: [{ tenant: GLOBEX }] });
  });

  it('the audit look-up is a range on audit_log_key_at_idx (key COLLATE "C"), not a scan of the log', async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // The log here is small, so the planner might rightly scan it: forbid that to ask whether the index *can* serve the range.
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows } = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT id, at, actor, reason, before FROM audit_log
          WHERE key >= $1 AND key < $2 AND action = ANY($3) AND tenant = ANY($4)
          ORDER BY at DESC, id DESC LIMIT 20`,
        ["3f9a1c2b7d4e", "3f9a1c2b7d4eg", ["record.release", "record.force_release"], [ACME]],
      );
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
      // On a log this small the tenant index (tenant, at DESC) costs the same as the key range; both are
      // index walks. Without a tenant the key range is the only door.
      expect(plan).toMatch(
        /Index Scan using audit_log_(key|tenant)_at_idx|Bitmap Index Scan on audit_log_(key|tenant)_at_idx/,
      );
      expect(plan).not.toMatch(/Seq Scan/);
      const { rows: unscoped } = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT id, at, actor, reason, before FROM audit_log
          WHERE key >= $1 AND key < $2 AND action = ANY($3)
          ORDER BY at DESC, id DESC LIMIT 20`,
        ["3f9a1c2b7d4e", "3f9a1c2b7d4eg", ["record.release", "record.force_release"]],
      );
      expect(unscoped.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(
        /Index Cond: \(\(key >= '3f9a1c2b7d4e'::text\) AND \(key < '3f9a1c2b7d4eg'::text\)\)/,
      );
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
  });
});
