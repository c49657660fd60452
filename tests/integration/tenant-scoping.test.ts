import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { writeAudit } from "@/lib/audit/write-audit";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { deriveKey } from "idem-guard";
import { connectTestDb } from "../helpers/db";
import { routeHandler } from "../helpers/api-routes";
import { systemAdmin } from "../helpers/system-admin";

// A user or token limited to tenant A meets tenant B's records nowhere: every API route answers
// as if B's rows, events and audit entries did not exist — 404, never 403, and a filter naming B
// answers exactly like a filter naming a tenant that does not exist (404 unknown_tenant, never an
// empty answer that reads as a fact; tests/integration/unknown-tenant.test.ts covers every such
// route). Each case has a control: an
// unlimited token sees the same B data through the same request, so the test can fail.
process.env.DATABASE_URL = inject("databaseUrl");
const processor = await startDemoProcessor();
const configDir = mkdtempSync(path.join(tmpdir(), "idem-tenant-scoping-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } } }),
);

const routes = {
  records: await routeHandler("records", "GET"),
  exportRecords: await routeHandler("records/export", "GET"),
  record: await routeHandler("records/[key]", "GET"),
  check: await routeHandler("records/[key]/check", "POST"),
  resolve: await routeHandler("records/[key]/resolve", "POST"),
  lookup: await routeHandler("lookup", "GET"),
  explain: await routeHandler("keys/explain", "GET"),
  metrics: await routeHandler("metrics", "GET"),
  audit: await routeHandler("audit", "GET"),
  plan: await routeHandler("bulk/plan", "POST"),
  apply: await routeHandler("bulk/apply", "POST"),
  reconcile: await routeHandler("reconcile", "POST"),
};

const run = randomBytes(3).toString("hex");
const A = `scope-a-${run}`;
const B = `scope-b-${run}`;
/** A tenant nobody uses: what "B does not exist" looks like. */
const GHOST = `scope-none-${run}`;
const AT = new Date("2026-06-01T12:00:00Z");
const ARGS = '{"amount_cents":4200,"card":"c_4242"}';
const system = systemAdmin("tenant-scoping-test");

const keyOf = (tenant: string, n: number) =>
  deriveKey({ tenant, subject: "user_1", tool: "charge_card", argumentsJson: n === 0 ? ARGS : `{"n":${n}}`, at: AT })
    .key;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field, as a client would
type Json = any;

describe("tenant scoping: an actor limited to tenant A never sees tenant B", () => {
  const db = connectTestDb();
  const token = { viewerA: "", operatorA: "", all: "" };
  const keys = {
    stuckA: keyOf(A, 1),
    doneA: keyOf(A, 2),
    releasableA: keyOf(A, 3),
    stuckB: keyOf(B, 0), // the key the explainer derives for (B, user_1, charge_card, ARGS, AT)
    doneB: keyOf(B, 2),
    releasedB: keyOf(B, 4), // no row any more: only its events and audit entries remain
    ghost: keyOf(GHOST, 5),
  };

  beforeAll(async () => {
    token.viewerA = (
      await createToken(db, system, { name: `scope-viewer-a-${run}`, role: "viewer", tenants: [A] })
    ).token;
    token.operatorA = (
      await createToken(db, system, { name: `scope-operator-a-${run}`, role: "operator", tenants: [A] })
    ).token;
    token.all = (await createToken(db, system, { name: `scope-all-${run}`, role: "admin" })).token;
    const hourAgo = new Date(Date.now() - 3_600_000);
    await db.idempotency.createMany({
      data: [
        {
          key: keys.stuckA,
          tenant: A,
          subject: "user_1",
          tool: "charge_card",
          status: "in_progress",
          createdAt: hourAgo,
        },
        {
          key: keys.doneA,
          tenant: A,
          subject: "user_1",
          tool: "charge_card",
          status: "completed",
          response: { card: "c_1" },
          createdAt: new Date(),
        },
        {
          key: keys.releasableA,
          tenant: A,
          subject: "user_1",
          tool: "charge_card",
          status: "in_progress",
          createdAt: hourAgo,
        },
        {
          key: keys.stuckB,
          tenant: B,
          subject: "user_1",
          tool: "charge_card",
          status: "in_progress",
          createdAt: hourAgo,
        },
        {
          key: keys.doneB,
          tenant: B,
          subject: "user_1",
          tool: "charge_card",
          status: "completed",
          response: { card: "c_2" },
          createdAt: new Date(),
        },
      ],
    });
    await db.idempotencyEvent.createMany({
      data: [
        { key: keys.doneB, tenant: B, tool: "charge_card", kind: "replay_served" },
        { key: keys.releasedB, tenant: B, tool: "charge_card", kind: "outcome_unknown" },
      ],
    });
    await db.$transaction(async (tx) => {
      await writeAudit(tx, system, {
        action: "record.complete",
        key: keys.doneB,
        tenant: B,
        reason: "tenant-scoping fixture",
      });
      await writeAudit(tx, system, {
        action: "record.release",
        key: keys.releasedB,
        tenant: B,
        reason: "tenant-scoping fixture",
      });
    });
  });
  afterAll(() => processor.stop());

  const request = (method: "GET" | "POST", url: string, bearer: string, body?: unknown) =>
    new Request(`http://console.test${url}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const none = { params: Promise.resolve({} as Record<string, never>) };
  const withKey = (key: string) => ({ params: Promise.resolve({ key }) });
  const get = async (route: (r: Request, c: typeof none) => Promise<Response>, url: string, bearer: string) => {
    const response = await route(request("GET", url, bearer), none);
    return {
      status: response.status,
      body: (response.headers.get("content-type") ?? "").includes("json")
        ? ((await response.json()) as Json)
        : await response.text(),
    };
  };
  const post = async (
    route: (r: Request, c: typeof none) => Promise<Response>,
    url: string,
    bearer: string,
    body: unknown,
  ) => {
    const response = await route(request("POST", url, bearer, body), none);
    return { status: response.status, body: (await response.json()) as Json };
  };
  /** Everything B-specific replaced by the ghost's name, and the clock dropped: B must read exactly like GHOST. */
  const asGhost = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value)
        .replaceAll(B, GHOST)
        .replaceAll(keys.releasedB, keys.ghost)
        .replaceAll(keys.releasedB.slice(0, 12), keys.ghost.slice(0, 12))
        .replace(/"(generatedAt|startedAt|durationMs|from|to)":("[^"]*"|\d+)/g, '"$1":0'),
    );
  const statusOf = async (key: string) => (await db.idempotency.findUnique({ where: { key } }))?.status ?? null;
  const auditCount = (key: string) => db.auditLog.count({ where: { key } });

  it("records list: tenant=B is unknown_tenant and reads exactly like tenant=<none>; unfiltered, no B row", async () => {
    const control = await get(routes.records, `/api/v1/records?tenant=${B}`, token.all);
    expect(control.body.records.map((r: Json) => r.key).sort()).toEqual([keys.stuckB, keys.doneB].sort());

    const asB = await get(routes.records, `/api/v1/records?tenant=${B}`, token.viewerA);
    const asNone = await get(routes.records, `/api/v1/records?tenant=${GHOST}`, token.viewerA);
    expect(asB.status).toBe(404);
    expect(asB.body.error.code).toBe("unknown_tenant");
    expect(asGhost(asB.body)).toEqual(asGhost(asNone.body));

    const all = await get(routes.records, "/api/v1/records?limit=200", token.viewerA);
    expect(all.body.records.map((r: Json) => r.tenant).every((t: string) => t === A)).toBe(true);
    expect(all.body.records.map((r: Json) => r.key)).toEqual(expect.arrayContaining([keys.stuckA, keys.doneA]));
  });

  it("record detail and check: B's key is a 404, worded exactly like a key that does not exist", async () => {
    expect(
      (await routes.record(request("GET", `/api/v1/records/${keys.doneB}`, token.all), withKey(keys.doneB))).status,
    ).toBe(200);
    expect(
      (await routes.record(request("GET", `/api/v1/records/${keys.doneA}`, token.viewerA), withKey(keys.doneA))).status,
    ).toBe(200);
    for (const [route, method] of [
      [routes.record, "GET"],
      [routes.check, "POST"],
    ] as const) {
      const theirs = await route(request(method, `/api/v1/records/${keys.doneB}`, token.viewerA), withKey(keys.doneB));
      const missing = await route(request(method, `/api/v1/records/${keys.ghost}`, token.viewerA), withKey(keys.ghost));
      expect(theirs.status).toBe(404);
      expect(await theirs.json()).toEqual(await missing.json());
    }
    const checked = await routes.check(
      request("POST", `/api/v1/records/${keys.stuckA}/check`, token.viewerA),
      withKey(keys.stuckA),
    );
    expect(checked.status).toBe(200);
  });

  it("lookup: B's ref, B's key and the ref of B's released claim find nothing and explain nothing B-specific", async () => {
    const control = await get(
      routes.lookup,
      `/api/v1/lookup?q=${encodeURIComponent(`ref ${keys.releasedB.slice(0, 12)}`)}`,
      token.all,
    );
    expect(control.body.whyMissing[0]).toMatch(/released by/); // the audit row is there to leak
    for (const text of [`ref ${keys.stuckB.slice(0, 12)}`, keys.doneB, `ref ${keys.releasedB.slice(0, 12)}`]) {
      const theirs = await get(routes.lookup, `/api/v1/lookup?q=${encodeURIComponent(text)}`, token.viewerA);
      expect(theirs.status).toBe(200);
      expect(theirs.body.matches).toEqual([]);
      expect(theirs.body.misses.every((m: Json) => m.events === null && m.lastAudit === null)).toBe(true);
      expect(JSON.stringify(theirs.body)).not.toMatch(/operator acted|writers recorded|released by|trimmed by/);
      expect(theirs.body.misses.every((m: Json) => m.fate === "never_seen")).toBe(true);
    }
    const released = await get(
      routes.lookup,
      `/api/v1/lookup?q=${encodeURIComponent(`ref ${keys.releasedB.slice(0, 12)}`)}`,
      token.viewerA,
    );
    const ghost = await get(
      routes.lookup,
      `/api/v1/lookup?q=${encodeURIComponent(`ref ${keys.ghost.slice(0, 12)}`)}`,
      token.viewerA,
    );
    expect(asGhost(released.body)).toEqual(asGhost(ghost.body));
  });

  it("key explainer: B's record under the derived key is not linked", async () => {
    const url = `/api/v1/keys/explain?tenant=${B}&subject=user_1&tool=charge_card&args=${encodeURIComponent(ARGS)}&at=${AT.toISOString()}`;
    const control = await get(routes.explain, url, token.all);
    expect(control.body.derived.key).toBe(keys.stuckB);
    expect(control.body.buckets.find((b: Json) => b.position === "same").records.map((r: Json) => r.key)).toEqual([
      keys.stuckB,
    ]);
    const theirs = await get(routes.explain, url, token.viewerA);
    expect(theirs.status).toBe(200);
    expect(theirs.body.derived.key).toBe(keys.stuckB); // deriving a key is arithmetic, not data
    expect(theirs.body.buckets.map((b: Json) => b.records)).toEqual([null, null, null]);
    expect(theirs.body.recordsError.code).toBe("unknown_tenant");
  });

  it("export, CSV and JSON: tenant=B is unknown_tenant like tenant=<none>; unfiltered, only A's", async () => {
    const control = await get(routes.exportRecords, `/api/v1/records/export?format=json&tenant=${B}`, token.all);
    expect(control.body.records.map((r: Json) => r.key).sort()).toEqual([keys.stuckB, keys.doneB].sort());
    for (const format of ["json", "csv"]) {
      const theirs = await get(
        routes.exportRecords,
        `/api/v1/records/export?format=${format}&tenant=${B}`,
        token.viewerA,
      );
      const ghost = await get(
        routes.exportRecords,
        `/api/v1/records/export?format=${format}&tenant=${GHOST}`,
        token.viewerA,
      );
      expect(theirs.status).toBe(404);
      expect(theirs.body.error.code).toBe("unknown_tenant");
      expect(asGhost(theirs.body)).toEqual(asGhost(ghost.body));
    }
    const everything = await get(routes.exportRecords, "/api/v1/records/export?format=csv", token.viewerA);
    expect(everything.body).toContain(keys.doneA);
    expect(everything.body).not.toContain(B);
  });

  it("metrics: tenant=B gives no B figures and reads exactly like tenant=<none> (unknown_tenant)", async () => {
    const control = await get(routes.metrics, `/api/v1/metrics?window=1h&tenant=${B}`, token.all);
    expect(control.body.overall.executions).toBeGreaterThanOrEqual(1);
    expect(control.body.tenants.map((t: Json) => t.tenant)).toEqual([B]);
    const theirs = await get(routes.metrics, `/api/v1/metrics?window=1h&tenant=${B}`, token.viewerA);
    const ghost = await get(routes.metrics, `/api/v1/metrics?window=1h&tenant=${GHOST}`, token.viewerA);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("unknown_tenant");
    expect(asGhost(theirs.body)).toEqual(asGhost(ghost.body));
    const unfiltered = await get(routes.metrics, "/api/v1/metrics?window=1h", token.viewerA);
    expect(unfiltered.body.tenants.map((t: Json) => t.tenant)).toEqual([A]);
  });

  it("audit list: tenant=B is unknown_tenant like tenant=<none>; B's keys and the unfiltered list show no B entry", async () => {
    const control = await get(routes.audit, `/api/v1/audit?tenant=${B}`, token.all);
    expect(control.body.entries.map((e: Json) => e.key).sort()).toEqual([keys.doneB, keys.releasedB].sort());
    const theirs = await get(routes.audit, `/api/v1/audit?tenant=${B}`, token.viewerA);
    expect(theirs.status).toBe(404);
    expect(asGhost(theirs.body)).toEqual(
      asGhost((await get(routes.audit, `/api/v1/audit?tenant=${GHOST}`, token.viewerA)).body),
    );
    for (const query of [`key=${keys.doneB}`, `key=${keys.releasedB.slice(0, 12)}`]) {
      const theirs = await get(routes.audit, `/api/v1/audit?${query}`, token.viewerA);
      expect(theirs.status).toBe(200);
      expect(theirs.body.entries).toEqual([]);
    }
    const unfiltered = await get(routes.audit, "/api/v1/audit?limit=200", token.viewerA);
    expect(unfiltered.body.entries.some((e: Json) => e.tenant !== A)).toBe(false);
  });

  it("resolve: B's claim is a 404 for an operator limited to A and stays as it was; A's own claim resolves", async () => {
    const body = { action: "release", reason: "tenant scoping: not theirs", expectedUpdatedAt: null };
    const theirs = await routes.resolve(
      request("POST", `/api/v1/records/${keys.stuckB}/resolve`, token.operatorA, body),
      withKey(keys.stuckB),
    );
    const missing = await routes.resolve(
      request("POST", `/api/v1/records/${keys.ghost}/resolve`, token.operatorA, body),
      withKey(keys.ghost),
    );
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
    expect(await statusOf(keys.stuckB)).toBe("in_progress");
    expect(await auditCount(keys.stuckB)).toBe(0);
    // Control: the same request on A's own claim (the processor never saw it: not taken) releases it.
    const own = await routes.resolve(
      request("POST", `/api/v1/records/${keys.releasableA}/resolve`, token.operatorA, body),
      withKey(keys.releasableA),
    );
    expect(own.status).toBe(200);
    expect(await statusOf(keys.releasableA)).toBeNull();
  });

  it("bulk plan and apply: B's keys are reported not found, a tenant=B filter is unknown_tenant, nothing of B changes", async () => {
    const control = await post(routes.plan, "/api/v1/bulk/plan", token.all, { filter: { tenant: B } });
    expect(control.body.rows.map((r: Json) => r.key)).toEqual([keys.stuckB]);

    const byKeys = await post(routes.plan, "/api/v1/bulk/plan", token.operatorA, {
      keys: [keys.stuckB, keys.stuckA, keys.ghost],
    });
    expect(byKeys.status).toBe(200);
    const row = (key: string) => byKeys.body.rows.find((r: Json) => r.key === key);
    expect(row(keys.stuckA)).toMatchObject({ tenant: A, status: "in_progress" });
    expect(row(keys.stuckB)).toMatchObject({ tenant: null, status: null, proposed: "leave" });
    expect({ ...row(keys.stuckB), key: "", ref: "" }).toEqual({ ...row(keys.ghost), key: "", ref: "" });

    const byFilter = await post(routes.plan, "/api/v1/bulk/plan", token.operatorA, { filter: { tenant: B } });
    expect(byFilter.status).toBe(404);
    expect(asGhost(byFilter.body)).toEqual(
      asGhost((await post(routes.plan, "/api/v1/bulk/plan", token.operatorA, { filter: { tenant: GHOST } })).body),
    );

    const applied = await post(routes.apply, "/api/v1/bulk/apply", token.operatorA, {
      reason: "tenant scoping: not theirs",
      rows: [{ key: keys.stuckB, action: "release", expectedUpdatedAt: null }],
    });
    expect(applied.status).toBe(200);
    expect(applied.body.results[0]).toMatchObject({
      key: keys.stuckB,
      result: "conflict",
      message: expect.stringMatching(/no longer exists/),
    });
    expect(await statusOf(keys.stuckB)).toBe("in_progress");
    expect(await auditCount(keys.stuckB)).toBe(0);
  });

  it("reconcile: a tenant=B sweep is unknown_tenant, B's keys are left alone", async () => {
    const control = await post(routes.reconcile, "/api/v1/reconcile", token.all, {
      filter: { tenant: B },
      dryRun: true,
    });
    expect(control.body.candidates).toBe(1);
    const sweep = await post(routes.reconcile, "/api/v1/reconcile", token.operatorA, {
      filter: { tenant: B },
      dryRun: false,
    });
    expect(sweep.status).toBe(404);
    expect(asGhost(sweep.body)).toEqual(
      asGhost(
        (
          await post(routes.reconcile, "/api/v1/reconcile", token.operatorA, {
            filter: { tenant: GHOST },
            dryRun: false,
          })
        ).body,
      ),
    );
    const byKey = await post(routes.reconcile, "/api/v1/reconcile", token.operatorA, {
      filter: { keys: [keys.stuckB] },
      dryRun: false,
    });
    expect(byKey.status).toBe(200);
    expect(byKey.body.rows).toMatchObject([{ key: keys.stuckB, tenant: "", action: "left" }]);
    expect(await statusOf(keys.stuckB)).toBe("in_progress");
    expect(await auditCount(keys.stuckB)).toBe(0);
  });
});
