import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { runToolVerification } from "@/lib/annotations/verify-tool/run-verification";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { startDemoWorld, type DemoWorld } from "@/lib/demo/demo-world";
import type { Actor } from "@/lib/identity/actor";
import { connectTestDb } from "../helpers/db";

// The double-call test against the real demo world: the shop's MCP server writing through the
// guard into this database, the demo processor and carrier counting what they performed. The
// counters are the assertion.
const run = randomBytes(3).toString("hex");
const admin: Actor = {
  kind: "system",
  id: "t",
  name: `verify-tool-test-${run}`,
  displayName: "verify-tool test",
  role: "admin",
  tenants: [],
};

describe("verify-tool against the demo world", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 8 });
  let world: DemoWorld;
  let config: IdemConfig;

  beforeAll(async () => {
    world = await startDemoWorld({ db: pool });
    config = parseConfig(
      JSON.stringify({
        ...world.config,
        mcpServers: [
          { ...world.config.mcpServers[0], verify: true },
          { name: "shop-production", transport: "http", url: world.mcp.url },
        ],
      }),
    );
  });
  afterAll(async () => {
    await world?.stop();
    await pool.end();
  });
  beforeEach(() => {
    world.processor.reset();
    world.carrier.reset();
    // The first call must still be running when the repeats arrive: the processor takes 1.5 s.
    world.processor.setFaults({ latencyMs: 1500 });
    world.carrier.setFaults({ latencyMs: 1500 });
  });

  const verify = (tool: string, args: Record<string, unknown>, extra: { server?: string; concurrency?: number } = {}) =>
    runToolVerification(
      admin,
      { server: extra.server ?? "shop", tool, arguments: args, concurrency: extra.concurrency },
      { db, config },
    );

  it("charge_card is verified: one execution, the repeat told in flight, one row, the processor charged once", async () => {
    const outcome = await verify("charge_card", {
      card: "c_4242",
      amount_cents: 1000 + Math.floor(Math.random() * 9000),
    });
    if (!outcome.ok) throw new Error(outcome.message);
    const v = outcome.verification;
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
    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: "tool.verify", actor: `system:${admin.name}` },
      orderBy: { id: "desc" },
    });
    expect(audit.after).toMatchObject({ verificationId: v.id, verdict: "verified", argumentsHash: v.argumentsHash });
  });
});
