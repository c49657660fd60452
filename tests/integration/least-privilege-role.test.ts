import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { grantConsoleRole } from "@/lib/db/console-role";
import { migrate } from "@/lib/db/migrate";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { routeHandler, type ApiRoutePath } from "../helpers/api-routes";
import { createTestDatabase } from "../helpers/test-database";
import { systemAdmin } from "../helpers/system-admin";

// The console serving as the least-privilege role `idem db grant` makes: its main API paths work,
// and the ways to rewrite the audit log that an owner or a superuser has are refused to it.
const run = randomBytes(3).toString("hex");
const ROLE = `idem_console_${run}`;
const TENANT = `lpr-${run}`;
const database = await createTestDatabase();
const ownerUrl = database.url;
const roleUrl = (() => {
  const url = new URL(ownerUrl);
  url.username = ROLE;
  url.password = "";
  return url.toString();
})();
const report = database.kind === "postgres" ? await grantConsoleRole(ownerUrl, { role: ROLE }) : null;
process.env.DATABASE_URL = roleUrl;
const processor = await startDemoProcessor();
const configDir = mkdtempSync(path.join(tmpdir(), "idem-lpr-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } } }),
);

const system = systemAdmin("lpr-test");
const keyOf = (label: string) => createHash("sha256").update(`lpr|${run}|${label}`).digest("hex");

describe.skipIf(database.kind !== "postgres")("the console's least-privilege role", () => {
  let owner: Db;
  let token = "";
  const role = new pg.Client({ connectionString: roleUrl });

  beforeAll(async () => {
    owner = createPrismaClient(ownerUrl, 2);
    token = (await createToken(owner, system, { name: `lpr-${run}`, role: "admin" })).token;
    await owner.$executeRawUnsafe(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES
       ($1, $4, 'cust', 'charge_card', 'completed', '{"charge_id": "ch_1"}', now() - interval '2 hours', now() - interval '2 hours'),
       ($2, $4, 'cust', 'charge_card', 'in_progress', null, now() - interval '1 hour', null),
       ($3, $4, 'cust', 'charge_card', 'in_progress', null, now() - interval '1 hour', null)`,
      keyOf("completed"),
      keyOf("taken"),
      keyOf("not-taken"),
      TENANT,
    );
    const charged = await fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ card: "c_4242", amount_cents: 700, reference: keyOf("taken") }),
    });
    expect(charged.status).toBe(200);
    await role.connect();
  });
  afterAll(async () => {
    await role.end().catch(() => {});
    await owner?.$disconnect();
    await processor.stop();
    const { getDb } = await import("@/lib/db/client");
    await getDb().$disconnect();
    await database.drop();
    const admin = new pg.Client({ connectionString: ownerUrl.replace(/\/[^/?]*(\?|$)/, "/postgres$1") });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(ROLE)}`).finally(() => admin.end());
  });

  const call = async (
    route: ApiRoutePath,
    method: "GET" | "POST",
    url: string,
    options: { body?: unknown; params?: Record<string, string> } = {},
  ) => {
    const handler = await routeHandler(route, method);
    const request = new Request(`http://console.test${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
    return { status: response.status, text: await response.text() };
  };

  it("owns nothing, is no superuser, and may not create in the schema", async () => {
    expect(report?.created).toBe(true);
    const { rows } = await role.query<{
      rolsuper: boolean;
      rolcreaterole: boolean;
      rolcreatedb: boolean;
      rolbypassrls: boolean;
      owned: number;
      can_create: boolean;
    }>(
      `SELECT r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls,
              (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid) AS owned,
              has_schema_privilege(current_user, current_schema(), 'CREATE') AS can_create
       FROM pg_roles r WHERE r.rolname = current_user`,
    );
    expect(rows[0]).toEqual({
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolbypassrls: false,
      owned: 0,
      can_create: false,
    });
  });

  it("serves the main API paths: lists, lookup, detail, export, audit, metrics, tools audit, check, reveal, resolve, bulk, reconcile", async () => {
    const taken = keyOf("taken");
    const notTaken = keyOf("not-taken");
    const answers: Record<string, { status: number; text: string }> = {
      "GET records": await call("records", "GET", `/api/v1/records?tenant=${TENANT}`),
      "GET records?stuck": await call("records", "GET", "/api/v1/records?stuck=true"),
      "GET export": await call("records/export", "GET", "/api/v1/records/export?format=csv"),
      "GET lookup": await call("lookup", "GET", `/api/v1/lookup?q=${encodeURIComponent(`ref ${taken.slice(0, 12)}`)}`),
      "GET detail": await call("records/[key]", "GET", `/api/v1/records/${taken}`, { params: { key: taken } }),
      "GET audit": await call("audit", "GET", "/api/v1/audit"),
      "GET metrics": await call("metrics", "GET", "/api/v1/metrics?window=24h"),
      "GET tools audit": await call("tools/audit", "GET", "/api/v1/tools/audit"),
      "GET me": await call("me", "GET", "/api/v1/me"),
      "POST check": await call("records/[key]/check", "POST", `/api/v1/records/${taken}/check`, {
        params: { key: taken },
      }),
      "POST reveal": await call("records/[key]/reveal", "POST", `/api/v1/records/${keyOf("completed")}/reveal`, {
        body: { reason: "least-privilege test reveal" },
        params: { key: keyOf("completed") },
      }),
      "POST resolve complete": await call("records/[key]/resolve", "POST", `/api/v1/records/${taken}/resolve`, {
        body: { action: "complete", reason: "processor says taken", expectedUpdatedAt: null },
        params: { key: taken },
      }),
      "POST bulk plan": await call("bulk/plan", "POST", "/api/v1/bulk/plan", { body: { keys: [notTaken] } }),
    };
    const plan = JSON.parse(answers["POST bulk plan"]!.text) as {
      rows: { key: string; proposed: string; expectedUpdatedAt: string | null }[];
    };
    expect(plan.rows.map((r) => r.proposed)).toEqual(["release"]);
    answers["POST bulk apply"] = await call("bulk/apply", "POST", "/api/v1/bulk/apply", {
      body: {
        reason: "least-privilege bulk release",
        rows: plan.rows.map((r) => ({ key: r.key, action: r.proposed, expectedUpdatedAt: r.expectedUpdatedAt })),
      },
    });
    answers["POST reconcile"] = await call("reconcile", "POST", "/api/v1/reconcile", {
      body: { filter: { tenant: TENANT }, dryRun: false },
    });
    const failed = Object.entries(answers)
      .filter(([, a]) => a.status !== 200)
      .map(([name, a]) => `${name}: ${a.status} ${a.text.slice(0, 200)}`);
    expect(failed).toEqual([]);
    const rows = await owner.idempotency.findMany({
      where: { tenant: TENANT },
      orderBy: { key: "asc" },
      select: { key: true, status: true },
    });
    expect(rows).toEqual(
      [
        { key: keyOf("completed"), status: "completed" },
        { key: taken, status: "completed" },
      ].sort((a, b) => (a.key < b.key ? -1 : 1)),
    );
    const actions = (
      await owner.auditLog.findMany({
        where: { key: { in: [taken, notTaken, keyOf("completed")] } },
        select: { action: true },
      })
    )
      .map((a) => a.action)
      .sort();
    expect(actions).toEqual(expect.arrayContaining(["record.complete", "record.release", "record.reveal"]));
  });

  it.each([
    ["UPDATE audit_log", "UPDATE audit_log SET reason = 'rewritten'"],
    ["DELETE FROM audit_log", "DELETE FROM audit_log"],
    ["TRUNCATE audit_log", "TRUNCATE audit_log"],
    ["ALTER TABLE audit_log", "ALTER TABLE audit_log ADD COLUMN forged text"],
    ["DISABLE TRIGGER", "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only"],
    ["session_replication_role", "SET session_replication_role = replica"],
    ["DROP TABLE audit_log", "DROP TABLE audit_log"],
    [
      "INSERT INTO idempotency (only writers claim)",
      `INSERT INTO idempotency (key, tenant, status) VALUES ('${"f".repeat(64)}', 'x', 'in_progress')`,
    ],
    ["UPDATE idempotency.tenant (only the compare-and-set columns)", "UPDATE idempotency SET tenant = 'moved'"],
    ["CREATE TABLE", "CREATE TABLE shadow_audit (id int)"],
  ])("refuses %s by privilege, before any trigger", async (_label, sql) => {
    // 42501 with PostgreSQL's own words: the append-only trigger uses the same code, so its message is excluded.
    await expect(role.query(sql)).rejects.toMatchObject({
      code: "42501",
      message: expect.stringMatching(/^(permission denied|must be owner)/),
    });
  });

  it("migrate as the role applies nothing and says the owner is needed only when a migration is pending", async () => {
    await expect(migrate(roleUrl)).resolves.toMatchObject({ applied: [] });
    const pending = mkdtempSync(path.join(tmpdir(), "idem-lpr-migrations-"));
    const { cpSync, mkdirSync } = await import("node:fs");
    cpSync(path.resolve("prisma/migrations"), pending, { recursive: true });
    mkdirSync(path.join(pending, "29991231000000_pending"));
    writeFileSync(
      path.join(pending, "29991231000000_pending", "migration.sql"),
      "CREATE TABLE pending_table (id int);",
    );
    await expect(migrate(roleUrl, { dir: pending })).rejects.toThrow(/needs the schema's owner.*DATABASE_MIGRATE_URL/);
  });
});
