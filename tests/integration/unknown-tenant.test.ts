import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { createToken } from "@/lib/auth/tokens";
import { writeAudit } from "@/lib/audit/write-audit";
import { createPrismaClient } from "@/lib/db/prisma";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { checkTenantFilter, tenantTraceQuery } from "@/lib/records/tenant-filter";
import { connectTestDb } from "../helpers/db";
import { freePort } from "../helpers/free-port";
import { routeHandler, type RouteHandler } from "../helpers/api-routes";
import { systemAdmin } from "../helpers/system-admin";

// Every API route that takes a tenant answers a tenant outside the caller's scope exactly as one
// that does not exist: 404 unknown_tenant, "no tenant 'x' among yours" — never zeros or an empty
// list that read as facts. Byte for byte the same but for the name, so a limited caller cannot
// tell which tenants exist; for an unrestricted caller "exists" means a row in the idempotency
// table, the audit log or the hourly metrics.
process.env.DATABASE_URL = inject("databaseUrl");
const processor = await startDemoProcessor();
const configDir = mkdtempSync(path.join(tmpdir(), "idem-unknown-tenant-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } } }),
);

const run = randomBytes(3).toString("hex");
/** The limited caller's tenant with rows, and one of theirs with none. */
const A = `ut-a-${run}`;
const A_EMPTY = `ut-a-empty-${run}`;
/** Another tenant's rows, audit entries and metrics: it exists, but not for the limited caller. */
const B = `ut-b-${run}`;
/** Traces of a tenant whose rows are gone: only the audit log, only the hourly metrics. */
const AUDIT_ONLY = `ut-audit-only-${run}`;
const METRICS_ONLY = `ut-metrics-only-${run}`;
/** Nobody's. */
const GHOST = `ut-ghost-${run}`;
const system = systemAdmin("unknown-tenant-test");

type Call = {
  route: string;
  method: "GET" | "POST";
  url: (tenant: string) => string;
  body?: (tenant: string) => unknown;
};

/** Every route that takes a tenant, with the request that names it. */
const CALLS: Call[] = [
  { route: "records", method: "GET", url: (t) => `/api/v1/records?tenant=${t}` },
  { route: "records", method: "GET", url: (t) => `/api/v1/records?tenant=${t}&status=completed&stuck=false&limit=25` },
  { route: "records/export", method: "GET", url: (t) => `/api/v1/records/export?format=csv&tenant=${t}` },
  { route: "records/export", method: "GET", url: (t) => `/api/v1/records/export?format=json&tenant=${t}` },
  { route: "metrics", method: "GET", url: (t) => `/api/v1/metrics?window=24h&tenant=${t}` },
  { route: "metrics", method: "GET", url: (t) => `/api/v1/metrics?window=1h&tool=charge_card&tenant=${t}` },
  { route: "audit", method: "GET", url: (t) => `/api/v1/audit?tenant=${t}` },
  { route: "bulk/plan", method: "POST", url: () => "/api/v1/bulk/plan", body: (t) => ({ filter: { tenant: t } }) },
  {
    route: "bulk/plan",
    method: "POST",
    url: () => "/api/v1/bulk/plan",
    body: (t) => ({ filter: { tenant: t, tool: "charge_card" } }),
  },
  {
    route: "reconcile",
    method: "POST",
    url: () => "/api/v1/reconcile",
    body: (t) => ({ filter: { tenant: t }, dryRun: true }),
  },
  {
    route: "reconcile",
    method: "POST",
    url: () => "/api/v1/reconcile",
    body: (t) => ({ filter: { tenant: t, olderThan: "1m", limit: 10 }, dryRun: true }),
  },
];
const label = (call: Call) => `${call.method} ${call.url("T")}${call.body ? ` ${JSON.stringify(call.body("T"))}` : ""}`;

type Answer = { status: number; contentType: string; text: string };

describe("a tenant outside the caller's scope reads exactly like one that does not exist", () => {
  const db = connectTestDb();
  const token = { limited: "", all: "" };
  const handlers = new Map<string, RouteHandler>();

  beforeAll(async () => {
    for (const call of CALLS) handlers.set(call.route, await routeHandler(call.route as never, call.method));
    handlers.set("keys/explain", await routeHandler("keys/explain", "GET"));
    token.limited = (
      await createToken(db, system, { name: `ut-operator-a-${run}`, role: "operator", tenants: [A, A_EMPTY] })
    ).token;
    token.all = (await createToken(db, system, { name: `ut-admin-${run}`, role: "admin" })).token;
    const now = new Date();
    await db.idempotency.createMany({
      data: [
        {
          key: `ut-a-done-${run}`.padEnd(64, "0"),
          tenant: A,
          subject: "user_1",
          tool: "charge_card",
          status: "completed",
          response: { ok: true },
          createdAt: now,
        },
        {
          key: `ut-b-done-${run}`.padEnd(64, "0"),
          tenant: B,
          subject: "user_1",
          tool: "charge_card",
          status: "completed",
          response: { ok: true },
          createdAt: now,
        },
        {
          key: `ut-b-open-${run}`.padEnd(64, "0"),
          tenant: B,
          subject: "user_1",
          tool: "charge_card",
          status: "in_progress",
          createdAt: new Date(now.getTime() - 3_600_000),
        },
      ],
    });
    await db.$transaction(async (tx) => {
      await writeAudit(tx, system, {
        action: "record.complete",
        key: `ut-b-done-${run}`.padEnd(64, "0"),
        tenant: B,
        reason: "unknown-tenant fixture",
      });
      await writeAudit(tx, system, {
        action: "record.release",
        key: `ut-audit-${run}`.padEnd(64, "0"),
        tenant: AUDIT_ONLY,
        reason: "unknown-tenant fixture",
      });
    });
    await db.metricsHourly.create({
      data: {
        hour: new Date("2026-01-01T00:00:00Z"),
        tenant: METRICS_ONLY,
        tool: "charge_card",
        executions: 3n,
        completed: 3n,
      },
    });
  });
  afterAll(() => processor.stop());

  async function send(call: Call, tenant: string, bearer: string): Promise<Answer> {
    const body = call.body?.(tenant);
    const request = new Request(`http://console.test${call.url(tenant)}`, {
      method: call.method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const response = await handlers.get(call.route)!(request, { params: Promise.resolve({}) });
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      text: await response.text(),
    };
  }
  const unknownBody = (tenant: string) =>
    JSON.stringify({ error: { code: "unknown_tenant", message: `no tenant '${tenant}' among yours` } });

  it("limited caller: another tenant and a tenant nobody has get the same 404, byte for byte but for the name", async () => {
    for (const call of CALLS) {
      const theirs = await send(call, B, token.limited);
      const nobodys = await send(call, GHOST, token.limited);
      expect(theirs.status, label(call)).toBe(404);
      expect(theirs.text, label(call)).toBe(unknownBody(B));
      expect({ ...theirs, text: theirs.text.replaceAll(B, "T") }, label(call)).toEqual({
        ...nobodys,
        text: nobodys.text.replaceAll(GHOST, "T"),
      });
      // Tenants with only an audit entry or only metrics exist too, and are just as invisible.
      expect((await send(call, AUDIT_ONLY, token.limited)).text, label(call)).toBe(unknownBody(AUDIT_ONLY));
    }
  });

  it("limited caller: their own tenants still answer, the one with no rows with true zeros", async () => {
    for (const call of CALLS) {
      for (const tenant of [A, A_EMPTY]) {
        const own = await send(call, tenant, token.limited);
        expect(own.status, `${label(call)} as ${tenant}`).toBe(200);
        expect(own.text, label(call)).not.toContain("unknown_tenant");
      }
    }
    const records = JSON.parse((await send(CALLS[0]!, A, token.limited)).text);
    expect(records.records.map((r: { tenant: string }) => r.tenant)).toEqual([A]);
  });

  it("unrestricted caller: a tenant with no trace anywhere is unknown; rows, an audit entry or hourly metrics make it exist", async () => {
    for (const call of CALLS) {
      const ghost = await send(call, GHOST, token.all);
      expect(ghost.status, label(call)).toBe(404);
      expect(ghost.text, label(call)).toBe(unknownBody(GHOST));
      for (const tenant of [B, AUDIT_ONLY, METRICS_ONLY])
        expect((await send(call, tenant, token.all)).status, `${label(call)} as admin for ${tenant}`).toBe(200);
    }
    const records = JSON.parse((await send(CALLS[0]!, B, token.all)).text);
    expect(records.records).toHaveLength(2);
  });

  it("key explainer: the key is derived for any tenant; the buckets' records are withheld with the same message", async () => {
    const explain = async (tenant: string, bearer: string) => {
      const url = `/api/v1/keys/explain?tenant=${tenant}&subject=user_1&tool=charge_card&args=${encodeURIComponent('{"amount_cents":100}')}&at=2026-06-01T12:00:00Z`;
      const response = await handlers.get("keys/explain")!(
        new Request(`http://console.test${url}`, { headers: { authorization: `Bearer ${bearer}` } }),
        { params: Promise.resolve({}) },
      );
      return {
        status: response.status,
        body: (await response.json()) as {
          derived: { key: string };
          buckets: { records: unknown[] | null }[];
          recordsError: unknown;
        },
      };
    };
    for (const [tenant, bearer] of [
      [B, token.limited],
      [GHOST, token.limited],
      [GHOST, token.all],
    ] as const) {
      const answer = await explain(tenant, bearer);
      expect(answer.status).toBe(200);
      expect(answer.body.derived.key).toMatch(/^[0-9a-f]{64}$/);
      expect(answer.body.buckets.map((b) => b.records)).toEqual([null, null, null]);
      expect(answer.body.recordsError).toEqual({
        code: "unknown_tenant",
        message: `no tenant '${tenant}' among yours`,
      });
    }
    // The explainer takes any text as the tenant (the writers hash it); a NUL is unknown, not a 500.
    const nul = await explain(encodeURIComponent("x\u0000y"), token.all);
    expect(nul.status).toBe(200);
    expect(nul.body.recordsError).toEqual({ code: "unknown_tenant", message: "no tenant 'x\\u0000y' among yours" });
    for (const [tenant, bearer] of [
      [A, token.limited],
      [B, token.all],
    ] as const) {
      const answer = await explain(tenant, bearer);
      expect(answer.body.recordsError).toBeNull();
      expect(answer.body.buckets.map((b) => b.records)).toEqual([[], [], []]);
    }
  });

  it("the limited caller's check never touches the database: nothing to time, nothing to learn", async () => {
    // A real client on a port nobody listens on: any query would fail the check.
    const nowhere = createPrismaClient(`postgresql://postgres@127.0.0.1:${await freePort()}/none`, 1);
    const limited: Actor = { kind: "token", id: "t", name: "t", displayName: "t", role: "viewer", tenants: [A] };
    try {
      expect(await checkTenantFilter(nowhere, limited, B)).toEqual({
        ok: false,
        code: "unknown_tenant",
        tenant: B,
        message: `no tenant '${B}' among yours`,
      });
      expect(await checkTenantFilter(nowhere, limited, GHOST)).toMatchObject({
        ok: false,
        message: `no tenant '${GHOST}' among yours`,
      });
      expect(await checkTenantFilter(nowhere, limited, A)).toEqual({ ok: true });
      expect(await checkTenantFilter(nowhere, limited, null)).toEqual({ ok: true });
      // Text no tenant can be stored as is unknown without asking; the message escapes it, never echoes it raw.
      expect(await checkTenantFilter(nowhere, { ...limited, tenants: [] }, "x\u0000y\u202e")).toMatchObject({
        ok: false,
        message: "no tenant 'x\\u0000y\\u202e' among yours",
      });
      // Control: the unrestricted check does ask the database, so the unreachable one fails it.
      await expect(checkTenantFilter(nowhere, { ...limited, tenants: [] }, B)).rejects.toThrow();
    } finally {
      await nowhere.$disconnect();
    }
  });

  it("the unrestricted check is index look-ups, never a scan, in a custom and in a generic plan", async () => {
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    const query = tenantTraceQuery(GHOST);
    const planOf = async (explain: string, values: unknown[]) =>
      (await client.query<{ "QUERY PLAN": string }>(explain, values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
    try {
      await client.query("BEGIN");
      // With sequential scans priced out, a probe still scans only if no index can answer it.
      await client.query("SET LOCAL enable_seqscan = off");
      const custom = await planOf(`EXPLAIN ${query.text}`, query.values);
      // A prepared statement's generic plan knows no tenant: it must still use the tenant indexes.
      await client.query("SET LOCAL plan_cache_mode = force_generic_plan");
      await client.query(`PREPARE tenant_trace AS ${query.text}`);
      const generic = await planOf(
        `EXPLAIN EXECUTE tenant_trace(${query.values.map((v) => client.escapeLiteral(String(v))).join(", ")})`,
        [],
      );
      for (const [name, plan] of [
        ["custom", custom],
        ["generic", generic],
      ] as const) {
        expect(plan, name).not.toMatch(/Seq Scan|Filter:/);
        // Each probe seeks the tenant in its index (an Index Cond), not a whole index read and filtered.
        expect(plan.match(/Index Cond: \(tenant = /g), `${name}:\n${plan}`).toHaveLength(3);
        for (const table of ["idempotency", "audit_log", "metrics_hourly"])
          expect(plan, `${name}: ${table}`).toMatch(new RegExp(`Index (Only )?Scan using \\w+ on ${table}\\b`));
      }
    } finally {
      await client.query("ROLLBACK");
      await client.end();
    }
  });
});
