import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_CLAIM, REFERENCE_COMPLETE, withIdempotency } from "idem-guard";
import { createToken } from "@/lib/auth/tokens";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";
import { createTestDatabase } from "../helpers/test-database";
import { systemAdmin } from "../helpers/system-admin";

// GET /api/v1/duplicates in-process, on a database of its own (the duplicate scan's state is one
// row per database). Claims are written by the real guard with an injected clock, two hours back
// (older than the scan's five-minute settle time); the answer is checked against a brute-force SQL
// self-join of the table, and a tenant-limited token against the same truth for its tenant only.
const database = await createTestDatabase();
process.env.DATABASE_URL = database.url;
const CONFIG = {
  tools: {
    charge_card: { stuckAfter: "5m" },
    create_shipment: {},
    legacy_tool: {},
    send_receipt_email: { businessKey: true },
  },
};
const configDir = mkdtempSync(path.join(tmpdir(), "idem-duplicates-api-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify(CONFIG));
const config = parseConfig(JSON.stringify(CONFIG));

const { GET } = await import("@/app/api/v1/duplicates/route");
const { GET: recordDetail } = await import("@/app/api/v1/records/[key]/route");

const system = systemAdmin("duplicates-api-test");

type Entry = {
  tenant: string;
  subject: string | null;
  tool: string;
  argumentsSha256: string;
  first: { key: string; ref: string; createdAt: string };
  second: { key: string; ref: string; createdAt: string };
  gapMs: number;
  windowSeconds: number;
  bucketEdge: string | null;
  fix: string;
};
type Answer = {
  window: string;
  since: string;
  until: string;
  scannedThrough: string | null;
  byTool: {
    tool: string;
    duplicates: number | null;
    hashedClaims: number;
    argumentsMismatches: number | null;
    businessKey: boolean;
  }[];
  entries: Entry[];
  nextCursor: string | null;
  mismatches: { key: string; ref: string; tool: string; tenant: string; storedSha256: string; callSha256: string }[];
};

describe("GET /api/v1/duplicates", () => {
  let db: Db;
  let pool: pg.Pool;
  const tokens = { all: "", acme: "" };
  // A 900 s bucket edge two hours back: the retries 10 s before and 20 s after it get two keys.
  const edge = new Date(Math.floor((Date.now() - 2 * 3_600_000) / 900_000) * 900_000);
  const at = (offsetSeconds: number) => new Date(edge.getTime() + offsetSeconds * 1000);

  async function call(
    tool: string,
    when: Date,
    args: object,
    who: { tenant: string; subject: string | null },
    businessKey?: string,
  ) {
    const guarded = withIdempotency(
      {
        db: pool,
        tool,
        statusTool: "get_status",
        clock: () => when,
        businessKey: businessKey === undefined ? undefined : () => businessKey,
      },
      async () => ({ ok: true }),
    );
    const result = await guarded({ ...who, argumentsJson: JSON.stringify(args) });
    expect(result.outcome).toBe("executed");
  }

  async function get(query: string, token = tokens.all): Promise<Response> {
    return GET(
      new Request(`http://console.test/api/v1/duplicates${query}`, { headers: { authorization: `Bearer ${token}` } }),
      {
        params: Promise.resolve({}),
      },
    );
  }

  /**
   * Every duplicate by the definition, straight from the table: the nearest earlier claim of the
   * same operation within 900 s; the business-key tool's claims are two operations by its rule.
   */
  async function sqlTruth(tenant?: string): Promise<Omit<Entry, "fix">[]> {
    const { rows } = await pool.query<{
      tenant: string;
      subject: string | null;
      tool: string;
      sha: string;
      first_key: string;
      first_at: Date;
      second_key: string;
      second_at: Date;
      edge: Date | null;
    }>(
      `SELECT b.tenant, b.subject, b.tool, b.arguments_sha256 AS sha, a.key AS first_key, a.created_at AS first_at,
              b.key AS second_key, b.created_at AS second_at,
              CASE WHEN floor(extract(epoch FROM a.created_at) / 900) < floor(extract(epoch FROM b.created_at) / 900)
                   THEN to_timestamp(floor(extract(epoch FROM b.created_at) / 900) * 900) END AS edge
       FROM idempotency b
       CROSS JOIN LATERAL (
         SELECT a.key, a.created_at FROM idempotency a
         WHERE a.tenant = b.tenant AND a.subject IS NOT DISTINCT FROM b.subject AND a.tool = b.tool
           AND a.arguments_sha256 = b.arguments_sha256 AND a.key <> b.key
           AND (a.created_at, a.key) < (b.created_at, b.key)
           AND b.created_at - a.created_at < interval '900 seconds'
         ORDER BY a.created_at DESC LIMIT 1) a
       WHERE b.arguments_sha256 IS NOT NULL AND b.tool <> 'send_receipt_email' AND ($1::text IS NULL OR b.tenant = $1)
       ORDER BY b.created_at DESC, b.key DESC`,
      [tenant ?? null],
    );
    return rows.map((r) => ({
      tenant: r.tenant,
      subject: r.subject,
      tool: r.tool,
      argumentsSha256: r.sha,
      first: { key: r.first_key, ref: r.first_key.slice(0, 12), createdAt: r.first_at.toISOString() },
      second: { key: r.second_key, ref: r.second_key.slice(0, 12), createdAt: r.second_at.toISOString() },
      gapMs: r.second_at.getTime() - r.first_at.getTime(),
      windowSeconds: 900,
      bucketEdge: r.edge?.toISOString() ?? null,
    }));
  }

  beforeAll(async () => {
    db = createPrismaClient(database.url, 2);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    tokens.all = (await createToken(db, system, { name: "duplicates-all", role: "viewer" })).token;
    tokens.acme = (await createToken(db, system, { name: "duplicates-acme", role: "viewer", tenants: ["acme"] })).token;
    const acme = { tenant: "acme", subject: "user_1" };
    const globex = { tenant: "globex", subject: "user_9" };
    // Straddling the edge: one operation, two keys, executed twice — for acme and for globex.
    await call("charge_card", at(-10), { card: "c_1", amount_cents: 100 }, acme);
    await call("charge_card", at(20), { card: "c_1", amount_cents: 100 }, acme);
    await call("charge_card", at(-12), { card: "c_9", amount_cents: 900 }, globex);
    await call("charge_card", at(18), { card: "c_9", amount_cents: 900 }, globex);
    // One bucket, two keys: a writer whose business key changed between the calls (the config does not know it).
    await call("create_shipment", at(100), { order: "o_1" }, acme, "order-1");
    await call("create_shipment", at(130), { order: "o_1" }, acme, "order-1-retry");
    // Not duplicates: a business-key tool's two receipts (two charges, equal arguments); other arguments;
    // further apart than the window.
    await call("send_receipt_email", at(-20), { to: "x" }, acme, "charge-1");
    await call("send_receipt_email", at(20), { to: "x" }, acme, "charge-2");
    await call("charge_card", at(40), { card: "c_1", amount_cents: 101 }, acme);
    await call("charge_card", at(-2_000), { card: "c_3", amount_cents: 100 }, acme);
    await call("charge_card", at(100), { card: "c_3", amount_cents: 100 }, acme);
    // A writer keyed by the order alone: the same order with other arguments is refused, not replayed.
    const shipOrder = (args: object) =>
      withIdempotency(
        {
          db: pool,
          tool: "ship_order",
          statusTool: "get_status",
          clock: () => at(200),
          businessKey: () => "order-7",
          argumentsInKey: false,
        },
        async () => ({ ok: true }),
      )({ ...acme, argumentsJson: JSON.stringify(args) });
    expect((await shipOrder({ order: "o_7", service: "express" })).outcome).toBe("executed");
    expect((await shipOrder({ order: "o_7", service: "standard" })).outcome).toBe("arguments_mismatch");
    // The reference writer: no tool, no hash, never scanned.
    for (const n of [1, 2]) {
      const key = createHash("sha256").update(`duplicates-api-reference-${n}`).digest("hex");
      await pool.query(REFERENCE_CLAIM, [key, "acme"]);
      await pool.query(REFERENCE_COMPLETE, [key, "{}"]);
    }
    // As the background rounds would, until it has read up to five minutes before `now` (whatever its chunk size).
    const now = new Date();
    let found = 0;
    for (
      let scan = await scanDuplicates(db, config, now);
      scan.chunks > 0;
      scan = await scanDuplicates(db, config, now)
    )
      found += scan.found;
    expect(found).toBe(3);
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  it("answers the pairs the SQL self-join finds, per tool and one by one, with the bucket edge and the fix", async () => {
    const response = await get("?window=24h");
    expect(response.status).toBe(200);
    const body = (await response.json()) as Answer;
    const truth = await sqlTruth();
    expect(truth).toHaveLength(3);
    expect(body.entries.map(({ fix: _fix, ...entry }) => entry)).toEqual(truth);
    expect(body.entries.map((e) => [e.tenant, e.tool, e.gapMs, e.bucketEdge])).toEqual([
      ["acme", "create_shipment", 30_000, null],
      ["acme", "charge_card", 30_000, edge.toISOString()],
      ["globex", "charge_card", 30_000, edge.toISOString()],
    ]);
    expect(body.entries[1]!.fix).toBe(
      "Use a business key such as the order id for charge_card, or have its writer check the previous bucket's key before claiming.",
    );
    expect(body.entries[0]!.fix).toMatch(/^Both claims fell in one bucket/);

    // Per tool: the pairs' count, and the configured tool whose writer never recorded a hash is "not recorded".
    const { rows: hashed } = await pool.query<{ tool: string; n: number }>(
      `SELECT tool, count(*)::int AS n FROM idempotency WHERE arguments_sha256 IS NOT NULL GROUP BY tool ORDER BY tool`,
    );
    const countOf = (tool: string) => truth.filter((e) => e.tool === tool).length;
    expect(body.byTool).toEqual([
      ...hashed.slice(0, 2).map((r) => ({
        tool: r.tool,
        duplicates: countOf(r.tool),
        hashedClaims: r.n,
        argumentsMismatches: 0,
        businessKey: false,
      })),
      { tool: "legacy_tool", duplicates: null, hashedClaims: 0, argumentsMismatches: null, businessKey: false },
      { tool: "send_receipt_email", duplicates: 0, hashedClaims: 2, argumentsMismatches: 0, businessKey: true },
      { tool: "ship_order", duplicates: 0, hashedClaims: 1, argumentsMismatches: 1, businessKey: false },
    ]);
    // The refusal, listed with both hashes and the record under the reused key, as the event and the row hold them.
    const { rows: refused } = await pool.query<{ key: string; stored: string; call: string; row_sha: string }>(
      `SELECT e.key, e.detail->>'stored' AS stored, e.detail->>'call' AS call, i.arguments_sha256 AS row_sha
       FROM idempotency_event e JOIN idempotency i USING (key) WHERE e.kind = 'arguments_mismatch'`,
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]!.stored).toBe(refused[0]!.row_sha);
    expect(body.mismatches).toEqual([
      expect.objectContaining({
        key: refused[0]!.key,
        ref: refused[0]!.key.slice(0, 12),
        tool: "ship_order",
        tenant: "acme",
        storedSha256: refused[0]!.stored,
        callSha256: refused[0]!.call,
      }),
    ]);
    expect(body.mismatches[0]!.storedSha256).not.toBe(body.mismatches[0]!.callSha256);
    expect(body.window).toBe("24h");
    expect(new Date(body.until).getTime() - new Date(body.since).getTime()).toBe(24 * 3_600_000);
    expect(new Date(body.scannedThrough!).getTime()).toBeGreaterThan(Date.now() - 6 * 60_000);
    expect(body.nextCursor).toBeNull();

    // The last hour holds none of them (all two hours back): no hashed claim there, so not recorded, never 0.
    const hour = (await (await get("?window=1h")).json()) as Answer;
    expect(hour.entries).toEqual([]);
    expect(hour.byTool.find((t) => t.tool === "charge_card")).toEqual({
      tool: "charge_card",
      duplicates: null,
      hashedClaims: 0,
      argumentsMismatches: null,
      businessKey: false,
    });
    expect(hour.mismatches).toEqual([]);
    expect(hour.scannedThrough).toBe(body.scannedThrough);
  });

  it("pages by its cursor: one at a time gives the same list", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 5; pages += 1) {
      const response = await get(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Answer;
      seen.push(...body.entries.map((e) => e.second.key));
      cursor = body.nextCursor;
      if (cursor === null) break;
      expect(cursor).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z~[0-9a-f]{64}$/);
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual((await sqlTruth()).map((e) => e.second.key));
  });

  it("a token limited to acme sees acme's only; globex is answered like a tenant that does not exist", async () => {
    const body = (await (await get("", tokens.acme)).json()) as Answer;
    expect(body.entries.map(({ fix: _fix, ...entry }) => entry)).toEqual(await sqlTruth("acme"));
    expect(body.entries.every((e) => e.tenant === "acme")).toBe(true);
    const charge = body.byTool.find((t) => t.tool === "charge_card");
    expect(charge?.duplicates).toBe(1);

    const outside = await get("?tenant=globex", tokens.acme);
    const nobody = await get("?tenant=nobody-has-this", tokens.acme);
    expect([outside.status, nobody.status]).toEqual([404, 404]);
    const [a, b] = [(await outside.json()) as { error: { code: string; message: string } }, await nobody.json()];
    expect(a.error.code).toBe("unknown_tenant");
    expect(a.error.message.replace("globex", "X")).toBe(
      (b as { error: { message: string } }).error.message.replace("nobody-has-this", "X"),
    );
    // An unlimited token may name globex (it exists) and gets its one pair.
    const globex = (await (await get("?tenant=globex")).json()) as Answer;
    expect(globex.entries.map((e) => e.tenant)).toEqual(["globex"]);
  });

  it("each record of a pair names the other in its detail, as the self-join pairs them; a record in none names none", async () => {
    const detailOf = async (key: string, token = tokens.all) => {
      const response = await recordDetail(
        new Request(`http://console.test/api/v1/records/${key}`, { headers: { authorization: `Bearer ${token}` } }),
        { params: Promise.resolve({ key }) },
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { duplicates: Entry[]; answer: { outcome: string; sentence: string } };
      // What support reads out: "once" only where no pair names the record.
      expect(body.answer.outcome, key).toBe(body.duplicates.length > 0 ? "done_again" : "done");
      if (body.duplicates.length > 0)
        expect(body.answer.sentence).toMatch(/ at least twice for the same request: .* \(ref [0-9a-f]{12}\)/);
      return body.duplicates;
    };
    const truth = await sqlTruth();
    for (const pair of truth) {
      const [asFirst, asSecond] = [await detailOf(pair.first.key), await detailOf(pair.second.key)];
      // Here no claim is both the first of one pair and the second of another: each names its one pair.
      expect(asFirst.map(({ fix: _fix, ...entry }) => entry)).toEqual([pair]);
      expect(asSecond.map(({ fix: _fix, ...entry }) => entry)).toEqual([pair]);
      expect(asSecond[0]!.fix).toMatch(
        pair.bucketEdge === null ? /^Both claims fell in one bucket/ : /^Use a business key/,
      );
    }
    // Every hashed claim in no pair, and the reference writer's (no hash, never scanned), name none.
    const paired = new Set(truth.flatMap((pair) => [pair.first.key, pair.second.key]));
    const { rows } = await pool.query<{ key: string }>(`SELECT key FROM idempotency ORDER BY key`);
    const unpaired = rows.map((r) => r.key).filter((key) => !paired.has(key));
    expect(unpaired.length).toBeGreaterThanOrEqual(8);
    for (const key of unpaired) expect(await detailOf(key), key).toEqual([]);

    // The other claim declined (its row now says so): the pair stays, the answer counts one charge and names it.
    const pair = truth[0]!;
    const sentenceOf = async (key: string) => {
      const response = await recordDetail(
        new Request(`http://console.test/api/v1/records/${key}`, {
          headers: { authorization: `Bearer ${tokens.all}` },
        }),
        { params: Promise.resolve({ key }) },
      );
      return ((await response.json()) as { answer: { outcome: string; sentence: string } }).answer;
    };
    const { rows: kept } = await pool.query<{ response: unknown }>(`SELECT response FROM idempotency WHERE key = $1`, [
      pair.first.key,
    ]);
    await pool.query(`UPDATE idempotency SET response = '{"status": "declined"}' WHERE key = $1`, [pair.first.key]);
    try {
      const answer = await sentenceOf(pair.second.key);
      expect(answer.outcome).toBe("done");
      expect(answer.sentence).toContain(
        `once, on ${pair.second.createdAt.slice(0, 10)} at ${pair.second.createdAt.slice(11, 19)} UTC. The same call was also claimed under ref ${pair.first.ref}`,
      );
      expect(answer.sentence).toMatch(/, which was refused: check it before answering\.$/);
      await pool.query(`DELETE FROM idempotency WHERE key = $1`, [pair.first.key]);
      expect((await sentenceOf(pair.second.key)).sentence).toMatch(/, which is no longer in the table: check it/);
      // The key claimed again (after a release): the new claim is in no pair, and the old pair's other claim is gone.
      await pool.query(
        `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at, arguments_sha256)
         VALUES ($1, $2, $3, $4, 'completed', '{"ok": true}', now(), now(), $5)`,
        [pair.first.key, pair.tenant, pair.subject, pair.tool, pair.argumentsSha256],
      );
      expect(await detailOf(pair.first.key)).toEqual([]);
      expect((await sentenceOf(pair.second.key)).sentence).toMatch(/, which is no longer in the table: check it/);
    } finally {
      await pool.query(
        `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at, arguments_sha256)
         VALUES ($1, $2, $3, $4, 'completed', $5, $6, $6, $7)
         ON CONFLICT (key) DO UPDATE SET response = EXCLUDED.response, created_at = EXCLUDED.created_at,
           updated_at = EXCLUDED.updated_at`,
        [
          pair.first.key,
          pair.tenant,
          pair.subject,
          pair.tool,
          JSON.stringify(kept[0]!.response),
          pair.first.createdAt,
          pair.argumentsSha256,
        ],
      );
    }
  });

  it.each([
    ["a window it does not have", "?window=2h", "window", /window: expected 1h, 24h or 48h, got "2h"/],
    ["a cursor it did not issue", "?cursor=yesterday", "cursor", /cursor: not a cursor this console issued/],
    [
      "a cursor with a rolled-over date",
      `?cursor=${encodeURIComponent(`2026-02-30T00:00:00.000Z~${"a".repeat(64)}`)}`,
      "cursor",
      /cursor: not a cursor/,
    ],
    ["limit 0", "?limit=0", "limit", /limit: expected a whole number from 1 to 200, got "0"/],
    ["limit 201", "?limit=201", "limit", /limit: expected a whole number from 1 to 200/],
    ["an unknown parameter", "?tenat=acme", "tenat", /unknown parameter "tenat"; duplicates take window, tool/],
    ["window twice", "?window=1h&window=24h", "window", /window: given 2 times/],
  ])("%s is a 400 naming the field", async (_label, query, param, message) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string; params: string[] } };
    expect(body.error.code).toBe("bad_request");
    expect(body.error.params).toEqual([param]);
    expect(body.error.message).toMatch(message);
  });
});
