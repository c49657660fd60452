import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import { ensureSearchIndexes, existingIndexes } from "@/lib/search/search-indexes";
import { Prisma } from "@/generated/prisma/client";
import { findBySearchableValues, searchableStatement } from "@/lib/search/find-by-searchable";
import { searchSpecs } from "@/lib/config/search-specs";
import { tenantScopeOf } from "@/lib/tenancy/tenant-scope";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { routeHandler } from "../helpers/api-routes";
import { systemAdmin } from "../helpers/system-admin";

// Searchable response fields (issue #28 §1–2) on this run's PostgreSQL: `idem db index` builds,
// keeps, rebuilds and drops its expression indexes; a search uses them, stays in the caller's
// tenants, finds no row whose writer recorded no tool, and never queries a masked value.
const url = inject("databaseUrl");
process.env.DATABASE_URL = url;
const configDir = mkdtempSync(path.join(tmpdir(), "idem-search-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
const run = randomBytes(3).toString("hex");
const TENANT = `srch-${run}`;
const OTHER = `srch-other-${run}`;
const CHARGE = `ch_${run}0001`;
const CONFIG_TEXT = JSON.stringify({
  tools: {
    charge_card: { search: { receipt: "$.id" } },
    refund_charge: { search: { receipt: "$.charge_id", refund: "$.id" } },
  },
});
writeFileSync(process.env.IDEM_CONFIG, CONFIG_TEXT);
const CONFIG = parseConfig(CONFIG_TEXT);
const system = systemAdmin("search-test");
const list = await routeHandler("records", "GET");
const exportFile = await routeHandler("records/export", "GET");
const detail = await routeHandler("records/[key]", "GET");
const none = { params: Promise.resolve({}) };
const actor = (tenants: string[]) => ({
  kind: "user" as const,
  id: "u",
  name: "viewer",
  displayName: "viewer",
  role: "viewer" as const,
  tenants,
});
const key = (i: number) => createHash("sha256").update(`srch|${run}|${i}`).digest("hex");

describe("searchable fields", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(async () => {
    await ensureSearchIndexes(url, { tools: {} }, { concurrently: true });
    await pool.end();
  });

  beforeAll(async () => {
    const rows: [string, string, string | null, unknown][] = [
      [key(1), TENANT, "charge_card", { id: CHARGE, amount_cents: 24000 }],
      [key(2), TENANT, "refund_charge", { id: `re_${run}0002`, charge_id: CHARGE }],
      [key(3), OTHER, "charge_card", { id: `ch_${run}0003` }],
      // An honest writer that records no tool: not in any index, so not found (docs/indexes.md).
      [key(4), TENANT, null, { id: `ch_${run}0004` }],
      // A value of a masked class stored under a searchable path, and an object there (never its JSON text).
      [key(5), TENANT, "charge_card", { id: "someone@example.com" }],
      [key(6), TENANT, "charge_card", { id: "4242424242424242" }],
      [key(7), TENANT, "charge_card", { id: { nested: "x" } }],
    ];
    for (const [k, tenant, tool, response] of rows)
      await pool.query(
        `INSERT INTO idempotency (key, tenant, tool, status, response) VALUES ($1, $2, $3, 'completed', $4)`,
        [k, tenant, tool, JSON.stringify(response)],
      );
  });

  it("creates one expression index per (tool, label), keeps them on a second run, drops what the config drops", async () => {
    const first = await ensureSearchIndexes(url, CONFIG, { concurrently: true });
    expect(first.created).toEqual([
      "idem_search_charge_card_receipt",
      "idem_search_refund_charge_receipt",
      "idem_search_refund_charge_refund",
    ]);
    const second = await ensureSearchIndexes(url, CONFIG, { concurrently: true });
    expect(second).toMatchObject({ created: [], rebuilt: [], dropped: [] });
    expect(second.kept).toHaveLength(3);
    const { rows } = await pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'idem_search_charge_card_receipt'`,
    );
    expect(rows[0]?.indexdef).toContain("((response #>> '{id}'::text[]))");
    expect(rows[0]?.indexdef).toContain("WHERE (tool = 'charge_card'::text)");

    // The path changed under the same label: rebuilt. A label removed: dropped.
    const moved = parseConfig(JSON.stringify({ tools: { charge_card: { search: { receipt: "$.receipt_id" } } } }));
    const third = await ensureSearchIndexes(url, moved, { concurrently: true });
    expect(third.rebuilt).toEqual(["idem_search_charge_card_receipt"]);
    expect(third.dropped).toEqual(["idem_search_refund_charge_receipt", "idem_search_refund_charge_refund"]);
    // An index left invalid by an interrupted CONCURRENTLY build is rebuilt, not trusted.
    await pool.query(
      `UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'idem_search_charge_card_receipt'::regclass`,
    );
    expect((await ensureSearchIndexes(url, moved, { concurrently: true })).rebuilt).toEqual([
      "idem_search_charge_card_receipt",
    ]);
    await ensureSearchIndexes(url, CONFIG, { concurrently: true });
    expect((await existingIndexes(pool)).map((i) => [i.name, i.valid])).toEqual([
      ["idem_search_charge_card_receipt", true],
      ["idem_search_refund_charge_receipt", true],
      ["idem_search_refund_charge_refund", true],
    ]);
  });

  it("gives long or unusual tool names a hashed name within 63 bytes", async () => {
    const tool = `Shop.Charge-${"x".repeat(60)}`;
    const report = await ensureSearchIndexes(
      url,
      parseConfig(JSON.stringify({ tools: { [tool]: { search: { receipt: "$.id" } } } })),
      {
        concurrently: false,
      },
    );
    expect(report.created[0]).toMatch(/^idem_search_shop_charge_x+_[0-9a-f]{8}$/);
    expect(report.created[0]!.length).toBeLessThanOrEqual(63);
    await ensureSearchIndexes(url, CONFIG, { concurrently: true });
  });

  it("searches through the expression index: the statement's plan names it (EXPLAIN)", async () => {
    const spec = searchSpecs(CONFIG).find((s) => s.tool === "charge_card")!;
    const plan = await db.$transaction(async (tx) => {
      // A few rows: without this the planner rightly prefers the heap; the bench shows it at 1 M rows.
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      return tx.$queryRaw<{ "QUERY PLAN": string }[]>(
        Prisma.sql`EXPLAIN ${searchableStatement(spec, [CHARGE], tenantScopeOf([TENANT]))}`,
      );
    });
    expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(
      /(Index (Only )?Scan using|Bitmap Index Scan on) idem_search_charge_card_receipt/,
    );
  });

  it("finds every tool's record under a shared label, in the caller's tenants only", async () => {
    const found = await findBySearchableValues(db, actor([]), CONFIG, [
      CHARGE,
      `ch_${run}0003`,
      `ch_${run}0004`,
      "nope_123",
    ]);
    expect(
      found
        .get(CHARGE)
        ?.map((m) => [m.key, m.field.tool, m.field.label])
        .sort(),
    ).toEqual(
      [
        [key(1), "charge_card", "receipt"],
        [key(2), "refund_charge", "receipt"],
      ].sort(),
    );
    expect(found.get(`ch_${run}0003`)?.map((m) => m.key)).toEqual([key(3)]);
    // A row whose writer recorded no tool is in no index: not found, and the docs say so.
    expect(found.get(`ch_${run}0004`)).toEqual([]);
    expect(found.get("nope_123")).toEqual([]);
    expect(found.refused).toEqual([]);

    const limited = await findBySearchableValues(db, actor([TENANT]), CONFIG, [CHARGE, `ch_${run}0003`]);
    expect(limited.get(CHARGE)).toHaveLength(2);
    expect(limited.get(`ch_${run}0003`)).toEqual([]);
  });

  it("never queries an e-mail address or a card number, though one is stored under a searchable path", async () => {
    const found = await findBySearchableValues(db, actor([]), CONFIG, [
      "someone@example.com",
      "4242424242424242",
      "4242 4242 4242 4242",
      '{"nested": "x"}',
      '{"nested":"x"}',
    ]);
    expect(found.refused.map((r) => [r.value, r.reason])).toEqual([
      ["someone@example.com", "email"],
      ["4242424242424242", "card_number"],
      ["4242 4242 4242 4242", "card_number"],
    ]);
    expect(found.has("someone@example.com")).toBe(false);
    // An object under the path never matches by its JSON text.
    expect(found.get('{"nested": "x"}')).toEqual([]);
    expect(found.get('{"nested":"x"}')).toEqual([]);
  });

  describe("the records list, its API and the export, by field=<label>:<value>", () => {
    let all: string;
    let limited: string;
    beforeAll(async () => {
      all = (await createToken(db, system, { name: `srch-all-${run}`, role: "viewer" })).token;
      limited = (await createToken(db, system, { name: `srch-lim-${run}`, role: "viewer", tenants: [OTHER] })).token;
    });
    const get = (target: string, token: string) =>
      new Request(`http://console.test${target}`, { headers: { authorization: `Bearer ${token}` } });
    const field = (value: string) => `field=${encodeURIComponent(value)}`;

    it("lists every tool's record holding the value, within the caller's tenants", async () => {
      const response = await list(get(`/api/v1/records?${field(`receipt:${CHARGE}`)}`, all), none);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { filter: { field: unknown }; records: { key: string }[] };
      expect(body.filter.field).toEqual({ label: "receipt", value: CHARGE });
      expect(body.records.map((r) => r.key).sort()).toEqual([key(1), key(2)].sort());
      const theirs = await list(get(`/api/v1/records?${field(`receipt:${CHARGE}`)}`, limited), none);
      expect(((await theirs.json()) as { records: unknown[] }).records).toEqual([]);
      // Exact: a prefix finds nothing.
      const prefix = await list(get(`/api/v1/records?${field(`receipt:${CHARGE.slice(0, -1)}`)}`, all), none);
      expect(((await prefix.json()) as { records: unknown[] }).records).toEqual([]);
    });

    it("exports the same rows", async () => {
      const response = await exportFile(
        get(`/api/v1/records/export?format=csv&${field(`refund:re_${run}0002`)}`, all),
        none,
      );
      expect(response.status).toBe(200);
      const lines = (await response.text()).split(/\r?\n/).filter((l) => l !== "" && !l.startsWith("#"));
      expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual([key(2)]);
    });

    it("refuses an unknown label, a bad form and a masked value with a 400 naming field, changing nothing", async () => {
      const before = await db.idempotency.count();
      const audits = await db.auditLog.count();
      for (const [target, words] of [
        [
          `/api/v1/records?${field(`tracking:${CHARGE}`)}`,
          /field: "tracking" is not a searchable field; configured: receipt, refund/,
        ],
        [`/api/v1/records?${field("receipt")}`, /field: expected <label>:<value>/],
        [`/api/v1/records?${field("receipt:someone@example.com")}`, /field: masked values cannot be searched/],
        [`/api/v1/records?${field("receipt:4242 4242 4242 4242")}`, /field: masked values cannot be searched/],
        [`/api/v1/records/export?format=json&${field("nolabel:x1")}`, /field: "nolabel" is not a searchable field/],
        [`/api/v1/records/export?format=json&${field("receipt:a@b.example")}`, /masked values cannot be searched/],
      ] as const) {
        const handler = target.includes("/export") ? exportFile : list;
        const response = await handler(get(target, all), none);
        expect(response.status, target).toBe(400);
        expect(response.headers.get("content-type")).toContain("application/json");
        const body = (await response.json()) as { error: { code: string; message: string; params: string[] } };
        expect(body.error.code).toBe("bad_request");
        expect(body.error.params).toEqual(["field"]);
        expect(body.error.message).toMatch(words);
      }
      expect(await db.idempotency.count()).toBe(before);
      expect(await db.auditLog.count()).toBe(audits);
    });

    it("shows a record's searchable fields on its detail, a masked one as null", async () => {
      const response = await detail(get(`/api/v1/records/${key(1)}`, all), {
        params: Promise.resolve({ key: key(1) }),
      });
      const body = (await response.json()) as { searchable: unknown };
      expect(body.searchable).toEqual([{ label: "receipt", path: "$.id", value: CHARGE }]);
      const masked = await detail(get(`/api/v1/records/${key(5)}`, all), { params: Promise.resolve({ key: key(5) }) });
      expect(((await masked.json()) as { searchable: unknown }).searchable).toEqual([
        { label: "receipt", path: "$.id", value: null },
      ]);
    });
  });
});
