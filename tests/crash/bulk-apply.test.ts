import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import type { Actor } from "@/lib/identity/actor";
import { applyBulkResolution } from "@/lib/resolve/bulk-plan";
import { routeChild, crashAtEveryStep } from "./crash-run";
import { markTokenUsed, useCrashDatabase, useCrashProcessor } from "./crash-setup";
import { claimsByKey, IDEMPOTENCY } from "./invariant";

// POST /api/v1/bulk/apply (the route handler in a child, an operator's token) over two stuck claims,
// one taken and one not: killed after each commit and while each re-check's answer is in flight.
const TENANT = "crash-bulk";
const system: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };
const operator: Actor = { ...system, name: "crash-operator", role: "operator" };
const REASON = "processor outage; crash test";

describe("crash: bulk apply killed at every commit and every processor call", () => {
  const database = useCrashDatabase();
  const upstream = useCrashProcessor("bulk");
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
    const created = await createToken(database.db, system, { name: "crash-bulk", role: "operator" });
    token = { id: created.summary.id, token: created.token };
  }, 60_000);

  it("resolves each row once, with its audit row, whatever the kill; the same apply again finishes the rest", async () => {
    const { db } = database;
    const { processor } = upstream;
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
          { DATABASE_URL: database.url, IDEM_CONFIG: upstream.configFile },
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
        await upstream.charge(keys.taken, 2_000 + round);
        await markTokenUsed(db, token.id);
      },
      async nextRun() {
        await applyBulkResolution(db, upstream.config(), operator, { reason: REASON, rows: rows() });
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
