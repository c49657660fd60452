import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The resolve, bulk and reconcile route handlers themselves, with bearer tokens, on this run's
// database and a live demo processor. (Sessions, their Origin rule and the same race over a real
// socket are in tests/browser/operator-flow.test.ts.)
process.env.DATABASE_URL = inject("databaseUrl");
const processor = await startDemoProcessor();
const configDir = mkdtempSync(path.join(tmpdir(), "idem-resolve-api-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    tools: {
      charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } },
      dead_tool: { processor: { type: "http", baseUrl: "http://127.0.0.1:1", timeout: "1s" } },
    },
  }),
);

const { POST: resolve } = await import("@/app/api/v1/records/[key]/resolve/route");
const { POST: plan } = await import("@/app/api/v1/bulk/plan/route");
const { POST: apply } = await import("@/app/api/v1/bulk/apply/route");
const { POST: reconcile } = await import("@/app/api/v1/reconcile/route");

const run = randomBytes(3).toString("hex");
const TENANT = `rapi-${run}`;
const system = systemAdmin("resolve-api-test");

type ErrorBody = {
  error: {
    code: string;
    message: string;
    current?: { key: string; status: string; version: string | null } | null;
    check?: { outcome: string };
  };
};

describe("POST /api/v1/records/{key}/resolve, /bulk/plan, /bulk/apply, /reconcile", () => {
  const db = connectTestDb();
  const tokens: Record<"viewer" | "operator" | "admin", string> = { viewer: "", operator: "", admin: "" };
  let n = 0;

  beforeAll(async () => {
    for (const role of ["viewer", "operator", "admin"] as const)
      tokens[role] = (await createToken(db, system, { name: `rapi-${role}-${run}`, role })).token;
  });
  afterAll(() => processor.stop());

  async function stuckClaim(options: { taken?: boolean; tool?: string } = {}) {
    n += 1;
    const key = createHash("sha256").update(`rapi|${run}|${n}`).digest("hex");
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${TENANT}, ${options.tool ?? "charge_card"}, 'in_progress', now() - interval '1 hour')`;
    if (options.taken) {
      const charged = await fetch(`${processor.url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: 700 + n, reference: key }),
      });
      expect(charged.status).toBe(200);
    }
    return key;
  }
  const post = (url: string, token: string, body: unknown) =>
    new Request(`http://console.test${url}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const resolveKey = (key: string, token: string, body: unknown) =>
    resolve(post(`/api/v1/records/${key}/resolve`, token, body), { params: Promise.resolve({ key }) });
  const none = { params: Promise.resolve({} as Record<string, never>) };
  const body = { action: "complete", reason: "processor timed out; it says taken", expectedUpdatedAt: null };
  const auditRows = (key: string) => db.auditLog.findMany({ where: { key } });

  it("completes a taken claim: 200 with before, after and the check; one audit row", async () => {
    const key = await stuckClaim({ taken: true });
    const response = await resolveKey(key, tokens.operator, body);
    expect(response.status).toBe(200);
    const result = (await response.json()) as Record<string, unknown>;
    expect(result).toMatchObject({
      action: "complete",
      forced: false,
      before: { key, status: "in_progress" },
      after: { status: "completed", response: { reference: key } },
      check: { outcome: "taken" },
    });
    expect(result).not.toHaveProperty("ok");
    expect(await auditRows(key)).toHaveLength(1);
  });

  it("20 concurrent resolves of one key: exactly one 200 and nineteen 409s carrying the current state", async () => {
    const key = await stuckClaim({ taken: true });
    const responses = await Promise.all(Array.from({ length: 20 }, () => resolveKey(key, tokens.operator, body)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(19).fill(409)]);
    const conflicts = (await Promise.all(
      responses.filter((r) => r.status === 409).map((r) => r.json()),
    )) as ErrorBody[];
    for (const conflict of conflicts) {
      expect(conflict.error.code).toBe("conflict");
      // Either the compare-and-set lost (current row returned) or the row was already completed when read.
      if (conflict.error.current !== undefined)
        expect(conflict.error.current).toMatchObject({ key, status: "completed" });
      else expect(conflict.error.message).toMatch(/completed, not in_progress/);
    }
    expect(conflicts.some((c) => c.error.current?.status === "completed")).toBe(true);
    expect(await auditRows(key)).toHaveLength(1);
  });

  it("refuses viewers (403), malformed JSON and bad bodies (400), an unknown outcome (409) and a forced release by an operator (403)", async () => {
    const key = await stuckClaim({ taken: true });
    const viewer = await resolveKey(key, tokens.viewer, body);
    expect(viewer.status).toBe(403);
    expect(((await viewer.json()) as ErrorBody).error.code).toBe("forbidden");

    const malformed = await resolveKey(key, tokens.operator, "{not json");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      error: { code: "bad_json", message: "The request body is not valid JSON." },
    });
    const badShape = await resolveKey(key, tokens.operator, {
      action: "settle",
      reason: "",
      expectedUpdatedAt: "2026-01-01T00:00:00Z",
    });
    expect(badShape.status).toBe(400);
    const fields = ((await badShape.json()) as { error: { fields: { field: string }[] } }).error.fields
      .map((f) => f.field)
      .sort();
    expect(fields).toEqual(["action", "expectedUpdatedAt", "reason"]);
    const badKey = await resolveKey("not a key", tokens.operator, body);
    expect(badKey.status).toBe(400);

    const dead = await stuckClaim({ tool: "dead_tool" });
    const unknown = await resolveKey(dead, tokens.operator, { ...body, action: "release" });
    expect(unknown.status).toBe(409);
    expect(((await unknown.json()) as ErrorBody).error).toMatchObject({
      code: "outcome_unknown",
      check: { outcome: "unknown" },
    });
    const forced = await resolveKey(dead, tokens.operator, {
      ...body,
      action: "release",
      force: true,
      confirm: "force release",
    });
    expect(forced.status).toBe(403);
    const byAdmin = await resolveKey(dead, tokens.admin, {
      ...body,
      action: "release",
      force: true,
      confirm: "force release",
    });
    expect(byAdmin.status).toBe(200);
    expect((await auditRows(dead)).map((a) => a.action)).toEqual(["record.force_release"]);
    expect(await auditRows(key)).toHaveLength(0);
  });

  it("a stale expectedUpdatedAt is a 409 with the current row; its version then succeeds", async () => {
    const key = await stuckClaim({ taken: true });
    await db.$executeRaw`UPDATE idempotency SET updated_at = now() WHERE key = ${key}`;
    const stale = await resolveKey(key, tokens.operator, body);
    expect(stale.status).toBe(409);
    const current = ((await stale.json()) as ErrorBody).error.current;
    expect(current).toMatchObject({ key, status: "in_progress", version: expect.stringMatching(/\.\d{6}Z$/) });
    expect((await resolveKey(key, tokens.operator, { ...body, expectedUpdatedAt: current?.version })).status).toBe(200);
  });

  it("bulk: plan then apply over the API; viewers may not plan; bad bodies are 400s", async () => {
    const taken = await stuckClaim({ taken: true });
    const notTaken = await stuckClaim();
    expect((await plan(post("/api/v1/bulk/plan", tokens.viewer, { keys: [taken] }), none)).status).toBe(403);
    expect((await plan(post("/api/v1/bulk/plan", tokens.operator, { keys: [] }), none)).status).toBe(400);
    expect(
      (await plan(post("/api/v1/bulk/plan", tokens.operator, { filter: { tenant: TENANT }, extra: 1 }), none)).status,
    ).toBe(400);

    const planned = await plan(post("/api/v1/bulk/plan", tokens.operator, { keys: [taken, notTaken] }), none);
    expect(planned.status).toBe(200);
    const { rows } = (await planned.json()) as {
      rows: { key: string; proposed: string; expectedUpdatedAt: string | null }[];
    };
    expect(rows.map((r) => r.proposed)).toEqual(["complete", "release"]);
    const applied = await apply(
      post("/api/v1/bulk/apply", tokens.operator, {
        reason: "bulk over the API",
        rows: rows.map((r) => ({ key: r.key, action: r.proposed, expectedUpdatedAt: r.expectedUpdatedAt })),
      }),
      none,
    );
    expect(applied.status).toBe(200);
    expect(await applied.json()).toMatchObject({ totals: { ok: 2, conflict: 0, changed_outcome: 0, error: 0 } });
    const tooMany = Array.from({ length: 51 }, (_, i) => ({
      key: String(i).padStart(64, "0"),
      action: "release",
      expectedUpdatedAt: null,
    }));
    const refused = await apply(
      post("/api/v1/bulk/apply", tokens.operator, { reason: "too many", rows: tooMany }),
      none,
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ErrorBody).error.message).toMatch(/at most 50 rows/);
  });

  it("reconcile: dry run by tenant changes nothing; keys with other criteria and a bad duration are 400s; viewers 403", async () => {
    const taken = await stuckClaim({ taken: true });
    const dry = await reconcile(
      post("/api/v1/reconcile", tokens.operator, { filter: { tenant: TENANT, tool: "charge_card" }, dryRun: true }),
      none,
    );
    expect(dry.status).toBe(200);
    const result = (await dry.json()) as { dryRun: boolean; rows: { key: string; action: string }[] };
    expect(result.dryRun).toBe(true);
    expect(result.rows.find((r) => r.key === taken)?.action).toBe("completed");
    expect((await db.idempotency.findUnique({ where: { key: taken } }))?.status).toBe("in_progress");

    const real = await reconcile(
      post("/api/v1/reconcile", tokens.operator, { filter: { keys: [taken] }, dryRun: false }),
      none,
    );
    expect(await real.json()).toMatchObject({ dryRun: false, totals: { completed: 1 } });
    expect((await db.idempotency.findUnique({ where: { key: taken } }))?.status).toBe("completed");

    expect(
      (
        await reconcile(
          post("/api/v1/reconcile", tokens.operator, { filter: { keys: [taken], tenant: TENANT }, dryRun: true }),
          none,
        )
      ).status,
    ).toBe(400);
    const badDuration = await reconcile(
      post("/api/v1/reconcile", tokens.operator, { filter: { olderThan: "soon" }, dryRun: true }),
      none,
    );
    expect(((await badDuration.json()) as ErrorBody).error.message).toMatch(
      /^filter\.olderThan: expected a positive duration/,
    );
    expect((await reconcile(post("/api/v1/reconcile", tokens.operator, { filter: {} }), none)).status).toBe(400); // dryRun is required
    expect((await reconcile(post("/api/v1/reconcile", tokens.viewer, { dryRun: true }), none)).status).toBe(403);
  });
});
