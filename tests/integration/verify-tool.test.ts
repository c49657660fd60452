import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { actorLabel } from "@/lib/audit/write-audit";
import { createToken } from "@/lib/auth/tokens";
import { runToolVerification } from "@/lib/annotations/verify-tool/run-verification";
import type { VerificationInput } from "@/lib/annotations/verify-tool/verification-input";
import { parseConfig } from "@/lib/config/load";
import { startDemoWorld } from "@/tools/demo/demo-world";
import { deriveKey } from "idem-guard";
import type { Actor } from "@/lib/identity/actor";
import { bundledScript } from "../helpers/bundled-script";
import { routeHandler } from "../helpers/api-routes";
import { connectTestDb } from "../helpers/db";
import { awayFromBucketEdge } from "../helpers/mid-bucket-clock";

// The double-call test against the real demo world: the shop's MCP server writing through the
// guard into this database, the demo processor and carrier counting what they performed (the
// counters are the assertion), and the test servers of tests/fixtures/verify-shop-server.ts over stdio.
const databaseUrl = inject("databaseUrl");
process.env.DATABASE_URL = databaseUrl;
const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
const world = await startDemoWorld({ db: pool });
const fixture = (mode: string) => ({
  name: `stdio-${mode}`,
  transport: "stdio",
  command: process.execPath,
  args: [
    bundledScript("tests/fixtures/verify-shop-server.ts"),
    "--mode",
    mode,
    "--database-url",
    databaseUrl,
    "--processor",
    world.processor.url,
    "--carrier",
    world.carrier.url,
  ],
  verify: true,
});
// The reference writer (tests/fixtures/reference-writer-server.ts): the reference statements verbatim, no tool or
// subject column, under a tenant of its own, so its keys are this file's only.
const REFERENCE_TENANT = `refw-${randomBytes(3).toString("hex")}`;
const referenceWriter = {
  name: "stdio-reference-writer",
  transport: "stdio",
  command: process.execPath,
  args: [
    bundledScript("tests/fixtures/reference-writer-server.ts"),
    "--database-url",
    databaseUrl,
    "--processor",
    world.processor.url,
    "--tenant",
    REFERENCE_TENANT,
  ],
  verify: true,
};
const configJson = {
  ...world.config,
  mcpServers: [
    { ...world.config.mcpServers[0], verify: true },
    // The same shop, not marked: production, say. Never called.
    { name: "shop-production", transport: "http", url: world.mcp.url },
    fixture("charges-twice"),
    fixture("one-at-a-time"),
    referenceWriter,
  ],
};
const config = parseConfig(JSON.stringify(configJson));
const configDir = mkdtempSync(path.join(tmpdir(), "idem-verify-tool-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify(configJson));

const run = randomBytes(3).toString("hex");
const actor = (role: Actor["role"]): Actor => ({
  kind: "system",
  id: "t",
  name: `verify-tool-${role}-${run}`,
  displayName: `verify-tool ${role}`,
  role,
  tenants: [],
});
const admin = actor("admin");
let amount = 1000;
/** A charge no earlier test made (its key is new): the amount differs each time. */
const charge = () => ({ card: "c_4242", amount_cents: (amount += 1) });

/** (floor(created_at_unix / 900) + 1) * 900, as an ISO instant: when the same arguments derive a new key. */
const bucketEndOf = (at: Date) => new Date((Math.floor(Math.trunc(at.getTime() / 1000) / 900) + 1) * 900_000);
const utc = (at: Date | string) =>
  `${(typeof at === "string" ? at : at.toISOString()).slice(0, 19).replace("T", " ")} UTC`;

describe("verify-tool against the demo world", () => {
  const db = connectTestDb();
  afterAll(async () => {
    await world.stop();
    await pool.query(`DELETE FROM idempotency WHERE tenant = $1`, [REFERENCE_TENANT]);
    await pool.end();
  });
  beforeEach(() => {
    world.processor.reset();
    world.carrier.reset();
    // The first call must still be running when the repeats arrive: the upstreams take 3 s (1.5 s was not
    // always enough on a CI machine loaded 6–8 deep, where a repeat's claim came after the first had finished).
    world.processor.setFaults({ latencyMs: 3000 });
    world.carrier.setFaults({ latencyMs: 3000 });
  });

  const verify = async (input: VerificationInput, as: Actor = admin) => {
    const outcome = await runToolVerification(as, input, { db, config });
    if (!outcome.ok) throw new Error(`refused: ${outcome.code}: ${outcome.message}`);
    return outcome.verification;
  };
  const nothingCalled = () => {
    expect(world.processor.stats().requests.total).toBe(0);
    expect(world.carrier.stats().requests.total).toBe(0);
  };

  it("charge_card is verified: one execution, the repeat told in flight, one row, the processor charged once", async () => {
    const v = await verify({ server: "shop", tool: "charge_card", arguments: charge() });
    expect(v.verdict, v.summary).toBe("verified");
    expect(v.step).toBeNull();
    expect(world.processor.stats().sideEffects).toBe(1);
    expect(v.evidence.calls.map((c) => `${c.phase}:${c.outcome}`).sort()).toEqual([
      "concurrent:executed",
      "concurrent:in_flight",
      "sequential:replayed",
    ]);
    const ref = v.evidence.calls.find((c) => c.outcome === "in_flight")!.ref!;
    expect(ref).toMatch(/^[0-9a-f]{12}$/);
    expect(v.evidence.rows).toHaveLength(1);
    expect(v.evidence.rows[0]!.key.startsWith(ref)).toBe(true);
    expect(v.evidence.checks.map((c) => c.result)).toEqual(["passed", "passed", "passed"]);
    expect(v.evidence.upstream).toMatchObject({ adapter: "http", sideEffects: 1 });

    const stored = await db.toolVerification.findUniqueOrThrow({ where: { id: BigInt(v.id) } });
    expect(stored).toMatchObject({ server: "shop", tool: "charge_card", verdict: "verified", concurrency: 2 });
    expect(stored.snapshotId).not.toBeNull();
    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: "tool.verify", actor: actorLabel(admin) },
      orderBy: { id: "desc" },
    });
    expect(audit.after).toMatchObject({ verificationId: v.id, verdict: "verified", argumentsHash: v.argumentsHash });
  });

  it("arguments the tool refuses are no verdict: inconclusive, nothing charged, the table and upstream not held against it", async () => {
    const before = world.processor.stats().sideEffects;
    const v = await verify({ server: "shop", tool: "charge_card", arguments: {} });
    expect(v.verdict, v.summary).toBe("inconclusive");
    expect(v.step).toBe("answers");
    expect(v.summary).toMatch(/executed none, so nothing was tested/);
    expect(v.evidence.checks.map((c) => `${c.step}:${c.result}`)).toEqual([
      "answers:inconclusive",
      "table:skipped",
      "upstream:skipped",
    ]);
    expect(v.evidence.hint).toMatch(/Give arguments the tool accepts/);
    expect(world.processor.stats().sideEffects).toBe(before);
  });

  it("charge_card at concurrency 4: every repeat at once is told in flight, the processor still charges once", async () => {
    const v = await verify({ server: "shop", tool: "charge_card", arguments: charge(), concurrency: 4 });
    expect(v.verdict, v.summary).toBe("verified");
    expect(v.evidence.calls.filter((c) => c.outcome === "in_flight")).toHaveLength(3);
    expect(new Set(v.evidence.calls.map((c) => c.keyOrder.join(","))).size).toBeGreaterThan(1);
    expect(world.processor.stats().sideEffects).toBe(1);
  });

  it("create_shipment fails at the table and the carrier: no row, and the carrier created 2 shipments", async () => {
    const v = await verify({
      server: "shop",
      tool: "create_shipment",
      arguments: { order_id: `ord-${run}`, address: "1 Main St", service_level: "ground" },
    });
    expect(v.verdict).toBe("failed");
    expect(v.step).toBe("table");
    expect(world.carrier.stats().sideEffects).toBe(2);
    const [answers, table, upstream] = v.evidence.checks;
    expect(answers!.result).toBe("inconclusive");
    expect(table).toMatchObject({ result: "failed" });
    expect(table!.detail).toMatch(/no row for create_shipment/);
    expect(upstream).toMatchObject({ step: "upstream", result: "failed" });
    expect(upstream!.detail).toMatch(/created 2 shipments/);
    expect(v.evidence.upstream).toMatchObject({ sideEffects: 2 });
    // The answers are kept masked like stored responses ($..address): every role reads the latest run.
    expect(v.evidence.calls.map((c) => c.text).join()).toContain("[redacted]");
    expect(JSON.stringify(v.evidence)).not.toContain("1 Main St");
    // Two executions already: no third shipment for the sequential repeat.
    expect(v.evidence.calls.filter((c) => c.phase === "sequential")).toHaveLength(0);
  });

  it("a handler that answers “in progress” but still charges fails at the upstream step (the processor counts 2)", async () => {
    const v = await verify({ server: "stdio-charges-twice", tool: "charge_card", arguments: charge() });
    expect(v.verdict, v.summary).toBe("failed");
    expect(v.step).toBe("upstream");
    expect(v.evidence.checks.map((c) => c.result)).toEqual(["passed", "passed", "failed"]);
    expect(world.processor.stats().sideEffects).toBe(2);
    expect(v.summary).toMatch(/performed 2 side effects/);
    expect(v.summary).toMatch(/1 without a reference/);
  });

  it("a fast upstream and a server that finishes each call first: inconclusive, with the hint to slow the upstream", async () => {
    world.processor.setFaults({ latencyMs: 0 });
    const v = await verify({ server: "stdio-one-at-a-time", tool: "charge_card", arguments: charge() });
    expect(v.verdict, v.summary).toBe("inconclusive");
    expect(v.step).toBe("answers");
    expect(v.summary).toMatch(/finished before the repeats arrived/);
    expect(v.evidence.hint).toMatch(/latencyMs/);
    expect(v.evidence.hint).toMatch(/x-demo-latency-ms/);
    expect(v.evidence.calls.some((c) => c.outcome === "in_flight")).toBe(false);
    // Everything else held: one charge, one row.
    expect(v.evidence.checks.map((c) => c.result)).toEqual(["inconclusive", "passed", "passed"]);
    expect(world.processor.stats().sideEffects).toBe(1);
  });

  it("refuses, before calling anything, what it may not or cannot verify", async () => {
    const before = await db.toolVerification.count();
    const cases: [VerificationInput, string, RegExp][] = [
      [{ server: "shop-production", tool: "charge_card", arguments: charge() }, "not_verifiable", /"verify": true/],
      [{ server: "nowhere", tool: "charge_card", arguments: charge() }, "bad_server", /idem\.config\.json/],
      [{ server: "shop", tool: "charge_everything", arguments: charge() }, "unknown_tool", /lists no tool/],
      [
        { server: "shop", tool: "charge_card", arguments: [1, 2] as unknown as Record<string, unknown> },
        "bad_request",
        /JSON object/,
      ],
      [{ server: "shop", tool: "charge_card", arguments: charge(), concurrency: 9 }, "bad_request", /at most 8/],
      [{ server: "shop", tool: "charge_card", arguments: charge(), concurrency: 1 }, "bad_request", /at least 2/],
    ];
    for (const [input, code, message] of cases) {
      const outcome = await runToolVerification(admin, input, { db, config });
      expect(outcome, JSON.stringify(input)).toMatchObject({ ok: false, code });
      if (!outcome.ok) expect(outcome.message).toMatch(message);
    }
    nothingCalled();
    expect(await db.toolVerification.count()).toBe(before);
  });

  it("refuses a viewer or an operator inside the domain too, and audits the refusal", async () => {
    for (const role of ["viewer", "operator"] as const) {
      const as = actor(role);
      const outcome = await runToolVerification(
        as,
        { server: "shop", tool: "charge_card", arguments: charge() },
        { db, config },
      );
      expect(outcome).toMatchObject({ ok: false, code: "forbidden" });
      const denied = await db.auditLog.findFirstOrThrow({ where: { action: "access.denied", actor: actorLabel(as) } });
      expect(denied.evidence).toMatchObject({ status: 403, permission: "tools:verify" });
    }
    nothingCalled();
  });

  it("the API route: a viewer's or operator's token is refused 403 and audited; an admin's runs and answers the verdict", async () => {
    const post = await routeHandler("tools/verifications", "POST");
    const send = (token: string, body: unknown) =>
      post(
        new Request("http://console.test/api/v1/tools/verifications", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({}) },
      );
    const body = { server: "shop", tool: "charge_card", arguments: charge() };
    for (const role of ["viewer", "operator"] as const) {
      const created = await createToken(db, admin, { name: `verify-${role}-${run}`, role });
      const response = await send(created.token, body);
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("forbidden");
      const label = actorLabel({
        kind: "token",
        id: created.summary.id,
        name: created.summary.name,
        displayName: "",
        role,
        tenants: [],
      });
      const denied = await db.auditLog.findFirstOrThrow({ where: { action: "access.denied", actor: label } });
      expect(denied.evidence).toMatchObject({
        status: 403,
        permission: "tools:verify",
        path: "/api/v1/tools/verifications",
      });
    }
    nothingCalled();

    const adminToken = (await createToken(db, admin, { name: `verify-admin-${run}`, role: "admin" })).token;
    const refused = await send(adminToken, { ...body, server: "shop-production" });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("not_verifiable");
    nothingCalled();

    const response = await send(adminToken, body);
    expect(response.status).toBe(200);
    const { verification, auditId } = (await response.json()) as {
      verification: { verdict: string; id: string };
      auditId: string;
    };
    expect(verification.verdict).toBe("verified");
    expect(world.processor.stats().sideEffects).toBe(1);
    // The answer names the run's own audit entry, so the page links it exactly.
    const entry = await db.auditLog.findUniqueOrThrow({ where: { id: BigInt(auditId) } });
    expect(entry).toMatchObject({
      action: "tool.verify",
      after: expect.objectContaining({ verificationId: verification.id }),
    });
  });
  it(
    "a writer running the reference statements verbatim (no tool, no subject column) is verified by the ref its answers named",
    { timeout: 90_000 },
    async () => {
      await awayFromBucketEdge();
      const args = charge();
      const v = await verify({ server: "stdio-reference-writer", tool: "charge_card", arguments: args });
      expect(v.verdict, v.summary).toBe("verified");
      expect(v.evidence.checks.map((c) => `${c.step}:${c.result}`)).toEqual([
        "answers:passed",
        "table:passed",
        "upstream:passed",
      ]);
      const ref = v.evidence.calls.find((c) => c.outcome === "in_flight")!.ref!;
      const [row] = v.evidence.rows;
      expect(row).toMatchObject({ status: "completed", tool: null });
      expect(row!.key.startsWith(ref)).toBe(true);
      // The row is the reference writer's: none of the optional columns is filled.
      const stored = await pool.query<Record<string, unknown>>(
        `SELECT tenant, tool, subject, arguments_sha256, updated_at FROM idempotency WHERE key = $1`,
        [row!.key],
      );
      expect(stored.rows).toEqual([
        { tenant: REFERENCE_TENANT, tool: null, subject: null, arguments_sha256: null, updated_at: null },
      ]);
      expect(world.processor.stats().sideEffects).toBe(1);
      expect(world.processor.stats().sideEffectsByReference[row!.key]).toBe(1);

      // The same arguments again within the bucket: every call is answered from that row, nothing executes.
      world.processor.reset();
      const again = await verify({ server: "stdio-reference-writer", tool: "charge_card", arguments: args });
      expect(again.verdict, again.summary).toBe("inconclusive");
      expect(again.step).toBe("table");
      expect(world.processor.stats().sideEffects).toBe(0);
      const createdAt = (
        await pool.query<{ created_at: Date }>(`SELECT created_at FROM idempotency WHERE key = $1`, [row!.key])
      ).rows[0]!.created_at;
      expect(again.summary).toContain(`every call was answered from row ${row!.key.slice(0, 12)}`);
      expect(again.summary).toContain("nothing executed, so nothing was tested");
      expect(again.summary).toContain(`until ${utc(bucketEndOf(createdAt))}, the end of the default 900 s bucket`);
      expect(again.evidence.earlierRow).toMatchObject({
        key: row!.key,
        status: "completed",
        tool: null,
        keyHoldsUntil: bucketEndOf(createdAt).toISOString(),
      });
      expect(again.evidence.hint).toMatch(/^Run it again with other arguments .*or with these after /);
      expect(again.evidence.checks.map((c) => `${c.step}:${c.result}`)).toEqual([
        "answers:inconclusive",
        "table:inconclusive",
        "upstream:skipped",
      ]);
    },
  );

  it(
    "the demo's charge_card twice with the same arguments (Verify…, then the README's command): the second is inconclusive, not refuted",
    { timeout: 90_000 },
    async () => {
      await awayFromBucketEdge();
      const args = charge();
      const first = await verify({ server: "shop", tool: "charge_card", arguments: args });
      expect(first.verdict, first.summary).toBe("verified");
      const key = first.evidence.rows[0]!.key;
      world.processor.reset();
      const second = await verify({ server: "shop", tool: "charge_card", arguments: args });
      expect(second.verdict, second.summary).toBe("inconclusive");
      expect(second.summary).toContain(`every call was answered from row ${key.slice(0, 12)}`);
      expect(second.evidence.earlierRow).toMatchObject({ key, tool: "charge_card", foundBy: "response" });
      expect(world.processor.stats().sideEffects).toBe(0);
      // Stored as what it is (inconclusive at the table), every call a replay: nothing of it counts against the tool.
      expect(second.evidence.calls.map((c) => c.outcome)).toEqual(["replayed", "replayed", "replayed"]);
      const stored = await db.toolVerification.findUniqueOrThrow({ where: { id: BigInt(second.id) } });
      expect(stored).toMatchObject({ verdict: "inconclusive", step: "table" });
    },
  );

  it(
    "an earlier claim still in progress answers every call in flight: inconclusive with the Stuck page, not 'none executed'",
    { timeout: 90_000 },
    async () => {
      await awayFromBucketEdge();
      const args = charge();
      // The claim the reference writer would make for these arguments now, left in_progress five minutes ago.
      const { key } = deriveKey({
        tenant: REFERENCE_TENANT,
        subject: "demo_host",
        tool: "charge_card",
        argumentsJson: JSON.stringify(args),
        at: new Date(),
      });
      await pool.query(
        `INSERT INTO idempotency (key, tenant, status, created_at) VALUES ($1, $2, 'in_progress', greatest(now() - interval '5 minutes', to_timestamp(floor(extract(epoch FROM now()) / 900) * 900)))`,
        [key, REFERENCE_TENANT],
      );
      const v = await verify({ server: "stdio-reference-writer", tool: "charge_card", arguments: args });
      expect(v.verdict, v.summary).toBe("inconclusive");
      expect(v.evidence.calls.every((c) => c.outcome === "in_flight")).toBe(true);
      expect(v.summary).toMatch(
        new RegExp(`^every call was told the call is in flight under row ${key.slice(0, 12)}, in_progress since`),
      );
      expect(v.evidence.earlierRow).toMatchObject({ key, foundBy: "ref" });
      expect(v.evidence.hint).toContain(`resolve it on the Stuck page (ref ${key.slice(0, 12)})`);
      expect(world.processor.stats().sideEffects).toBe(0);
    },
  );
});
