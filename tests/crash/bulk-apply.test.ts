import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { applyBulkResolution } from "@/lib/resolve/bulk-plan";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { routeChild, crashAtEveryStep } from "./crash-run";
import { claimsByKey, IDEMPOTENCY } from "./invariant";

// POST /api/v1/bulk/apply (the route handler in a child, an operator's token) over two stuck claims,
// one taken and one not: killed after each commit and while each re-check's answer is in flight.
const TENANT = "crash-bulk";
const system: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };
const operator: Actor = { ...system, name: "crash-operator", role: "operator" };
const REASON = "processor outage; crash test";

describe("crash: bulk apply killed at every commit and every processor call", () => {
  let database: TestDatabase;
  let db: Db;
  let processor: DemoUpstream;
  let configFile: string;
  let token: { id: string; token: string };
  let round = 0;
  /** The processor's charges before this round's own: the console asks, it never charges. */
  let chargesBefore = 0;
  let keys: { taken: string; notTaken: string };
  const rows = () => [
    { key: keys.taken, action: "complete" as const, expectedUpdatedAt: null },
    { key: keys.notTaken, action: "release" as const, expectedUpdatedAt: null },
  ];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url);
    processor = await startDemoProcessor();
    configFile = path.join(mkdtempSync(path.join(tmpdir(), "idem-crash-bulk-")), "idem.config.json");
    writeFileSync(
      configFile,
      JSON.stringify({ tools: { charge_card: { processor: { type: "http", baseUrl: processor.url } } } }),
    );
    const created = await createToken(db, system, { name: "crash-bulk", role: "operator" });
    token = { id: created.summary.id, token: created.token };
  }, 60_000);
  afterAll(async () => {
    await processor?.stop();
    await db?.$disconnect();
    await database?.drop();
  });

  it("resolves each row once, with its audit row, whatever the kill; the same apply again finishes the rest", async () => {
    const report = await crashAtEveryStep({
      db,
      // A function: each round's keys go into the request.
      child: () =>
        routeChild(
          {
            module: "app/api/v1/bulk/apply/route.ts",
            url: "/api/v1/bulk/apply",
            token: token.token,
            body: { reason: REASON, rows: rows() },
          },
          { DATABASE_URL: database.url, IDEM_CONFIG: configFile },
        ),
      kinds: ["after-commit", "during-call"],
      watched: [IDEMPOTENCY],
      claimsOf: claimsByKey,
      async prepare() {
        round += 1;
        chargesBefore = processor.stats().sideEffects;
        const key = (label: string) => createHash("sha256").update(`crash-bulk|${round}|${label}`).digest("hex");
        keys = { taken: key("taken"), notTaken: key("not-taken") };
        for (const k of [keys.taken, keys.notTaken])
          await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${k}, ${TENANT}, 'charge_card', 'in_progress', now() - interval '1 hour')`;
        const charged = await fetch(`${processor.url}/charges`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ card: "c_4242", amount_cents: 2_000 + round, reference: keys.taken }),
        });
        expect(charged.status).toBe(200);
        // Used a moment ago: the handler's fire-and-forget last_used_at write stays out of the counted steps.
        await db.apiToken.update({ where: { id: token.id }, data: { lastUsedAt: new Date() } });
      },
      async nextRun() {
        const config = parseConfig(
          JSON.stringify({ tools: { charge_card: { processor: { type: "http", baseUrl: processor.url } } } }),
        );
        await applyBulkResolution(db, config, operator, { reason: REASON, rows: rows() });
      },
      async expectDone() {
        expect(processor.stats().sideEffects - chargesBefore, "the test's one charge, nothing more").toBe(1);
        const left = await db.idempotency.findMany({ where: { key: { in: [keys.taken, keys.notTaken] } } });
        expect(left.map((r) => [r.key, r.status])).toEqual([[keys.taken, "completed"]]);
        const audit = await db.auditLog.findMany({ where: { key: { in: [keys.taken, keys.notTaken] } } });
        expect(audit.map((a) => `${a.key === keys.taken ? "taken" : "not taken"} ${a.action}`).sort()).toEqual([
          "not taken record.release",
          "taken record.complete",
        ]);
      },
    });
    // the run's job_run row as it starts; each row's transaction; the run's end; each row's re-check.
    expect(report.points).toEqual([
      "after-commit:1",
      "after-commit:2",
      "after-commit:3",
      "after-commit:4",
      "during-call:1",
      "during-call:2",
    ]);
  }, 300_000);
});
