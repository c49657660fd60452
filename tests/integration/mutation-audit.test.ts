import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { actorLabel } from "@/lib/audit/write-audit";
import { createToken } from "@/lib/auth/tokens";
import { startDemoMcpServer } from "@/tools/demo/mcp/demo-mcp-server";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { connectTestDb } from "../helpers/db";
import { insertTakenClaim } from "../helpers/taken-claim";
import { routeHandler, type ApiRoutePath } from "../helpers/api-routes";
import { CLAIM_COLUMNS } from "@/lib/records/visible-records";
import { systemAdmin } from "../helpers/system-admin";

// Every route that can change something, called once the way its users call it: the audit log
// gains exactly the rows the mutation promises (one), and read-only POSTs gain none. The list
// of routes comes from app/: a new mutating route without a case here fails the first test.
process.env.DATABASE_URL = inject("databaseUrl");
const processor = await startDemoProcessor();
const shopPool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
const shop = await startDemoMcpServer({ db: shopPool, processorUrl: processor.url, carrierUrl: processor.url });
const configDir = mkdtempSync(path.join(tmpdir(), "idem-mutation-audit-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } },
    mcpServers: [{ name: "maud-shop", transport: "http", url: shop.url, verify: true }],
    outbound: { allow: ["127.0.0.1"] },
  }),
);

const run = randomBytes(3).toString("hex");
const TENANT = `maud-${run}`;
const system = systemAdmin("mutation-audit-test");
const MUTATING = ["POST", "PUT", "PATCH", "DELETE"] as const;

/** "app/api/v1/records/[key]/resolve/route.ts" exporting POST → "POST /api/v1/records/[key]/resolve". */
function mutatingRoutes(dir = "app/api"): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...mutatingRoutes(full));
    else if (entry === "route.ts") {
      const source = readFileSync(full, "utf8");
      const route = `/${path.dirname(full).replace(/^app\//, "")}`;
      for (const method of MUTATING)
        if (new RegExp(`export (const|async function) ${method}\\b`).test(source)) found.push(`${method} ${route}`);
    }
  }
  return found.sort();
}

type Case = { auditRows: number; call: () => Promise<Response> };

describe("every mutation route writes exactly one audit row; read-only POSTs write none", () => {
  const db = connectTestDb();
  let token = "";
  let label = "";
  let n = 0;
  afterAll(async () => {
    await shop.stop();
    await shopPool.end();
    await processor.stop();
  });

  beforeAll(async () => {
    const created = await createToken(db, system, { name: `maud-admin-${run}`, role: "admin" });
    token = created.token;
    label = actorLabel({
      kind: "token",
      id: created.summary.id,
      name: created.summary.name,
      displayName: "",
      role: "admin",
      tenants: [],
    });
  });

  async function takenClaim(): Promise<string> {
    n += 1;
    return insertTakenClaim(db, processor.url, { tenant: TENANT, label: `maud|${run}|${n}`, amountCents: 900 + n });
  }
  async function completedRecord(): Promise<string> {
    n += 1;
    const key = createHash("sha256").update(`maud-done|${run}|${n}`).digest("hex");
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at) VALUES (${key}, ${TENANT}, 'charge_card', 'completed', ${JSON.stringify({ id: "ch_1", card: "c_4242" })}::jsonb, now() - interval '1 hour', now())`;
    return key;
  }
  const request = (url: string, body: unknown) =>
    new Request(`http://console.test${url}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const keyed = (key: string) => ({ params: Promise.resolve({ key }) });
  const none = { params: Promise.resolve({} as Record<string, never>) };
  const route = async (path: ApiRoutePath) => ({ POST: await routeHandler(path, "POST") });

  const cases: Record<string, Case> = {
    "POST /api/v1/records/[key]/resolve": {
      auditRows: 1,
      call: async () => {
        const key = await takenClaim();
        return (await route("records/[key]/resolve")).POST!(
          request(`/api/v1/records/${key}/resolve`, {
            action: "complete",
            reason: "processor says taken",
            expectedUpdatedAt: null,
          }),
          keyed(key),
        );
      },
    },
    "POST /api/v1/records/[key]/reveal": {
      auditRows: 1,
      call: async () => {
        const key = await completedRecord();
        return (await route("records/[key]/reveal")).POST!(
          request(`/api/v1/records/${key}/reveal`, { reason: "ticket 1: which card?" }),
          keyed(key),
        );
      },
    },
    "POST /api/v1/records/[key]/allow-repeat": {
      auditRows: 1,
      call: async () => {
        const key = await completedRecord();
        const [row] = await db.$queryRaw<
          { version: string }[]
        >`SELECT ${CLAIM_COLUMNS} FROM idempotency WHERE key = ${key}`;
        return (await route("records/[key]/allow-repeat")).POST!(
          request(`/api/v1/records/${key}/allow-repeat`, {
            reason: "ticket 2: the customer buys it again",
            expectedUpdatedAt: row!.version,
          }),
          keyed(key),
        );
      },
    },
    "POST /api/v1/records/[key]/check": {
      auditRows: 0,
      call: async () => {
        const key = await takenClaim();
        return (await route("records/[key]/check")).POST!(request(`/api/v1/records/${key}/check`, {}), keyed(key));
      },
    },
    "POST /api/v1/records/[key]/check-arguments": {
      auditRows: 0,
      call: async () => {
        const key = await completedRecord();
        return (await route("records/[key]/check-arguments")).POST!(
          request(`/api/v1/records/${key}/check-arguments`, { args: '{"amount_cents": 900}' }),
          keyed(key),
        );
      },
    },
    "POST /api/v1/bulk/plan": {
      auditRows: 0,
      call: async () =>
        (await route("bulk/plan")).POST!(request("/api/v1/bulk/plan", { keys: [await takenClaim()] }), none),
    },
    "POST /api/v1/bulk/apply": {
      auditRows: 1,
      call: async () => {
        const key = await takenClaim();
        return (await route("bulk/apply")).POST!(
          request("/api/v1/bulk/apply", {
            reason: "bulk: processor says taken",
            rows: [{ key, action: "complete", expectedUpdatedAt: null }],
          }),
          none,
        );
      },
    },
    "POST /api/v1/reconcile": {
      auditRows: 1,
      call: async () =>
        (await route("reconcile")).POST!(
          request("/api/v1/reconcile", { filter: { keys: [await takenClaim()] }, dryRun: false }),
          none,
        ),
    },
    "POST /api/v1/tools/reviews": {
      auditRows: 1,
      call: async () =>
        (await route("tools/reviews")).POST!(
          request("/api/v1/tools/reviews", {
            server: `maud-${run}`,
            tool: "get_weather",
            reason: "reads only: repeating it has no effect",
          }),
          none,
        ),
    },
    "POST /api/v1/tools/servers": {
      auditRows: 1,
      call: async () =>
        (await route("tools/servers")).POST!(
          request("/api/v1/tools/servers", { name: `maud-${run}`, url: "http://127.0.0.1:1/mcp" }),
          none,
        ),
    },
    "POST /api/v1/tools/upload": {
      auditRows: 1,
      call: async () =>
        (await route("tools/upload")).POST!(
          request(`/api/v1/tools/upload?server=maud-upload-${run}`, {
            tools: [{ name: "charge_card", inputSchema: { type: "object" }, annotations: { idempotentHint: true } }],
          }),
          none,
        ),
    },
    "POST /api/v1/tools/verifications": {
      auditRows: 1,
      call: async () =>
        (await route("tools/verifications")).POST!(
          request("/api/v1/tools/verifications", {
            server: "maud-shop",
            tool: "charge_card",
            arguments: { card: "c_4242", amount_cents: 4321 },
          }),
          none,
        ),
    },
    "POST /api/v1/tools/refresh": {
      auditRows: 1,
      call: async () => (await route("tools/refresh")).POST!(request("/api/v1/tools/refresh", {}), none),
    },
  };

  it("has a case for every mutating route in app/", () => {
    // The /api/v1 catch-all answers every method with a 404 and changes nothing (its rows are in tests/access).
    const changing = mutatingRoutes().filter((r) => !r.startsWith("POST /api/auth/") && !r.endsWith("/[...path]"));
    expect(Object.keys(cases).sort()).toEqual(changing);
  });

  for (const [name, testCase] of Object.entries(cases)) {
    it(`${name} → ${testCase.auditRows} audit row(s)`, async () => {
      const before = await db.auditLog.count({ where: { actor: label } });
      const response = await testCase.call();
      expect(response.status, await response.clone().text()).toBeLessThan(300);
      expect(await db.auditLog.count({ where: { actor: label } })).toBe(before + testCase.auditRows);
    });
  }
});
