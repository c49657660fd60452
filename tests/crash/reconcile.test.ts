import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { reconcile } from "@/lib/resolve/reconcile";
import { cliChild, crashAtEveryStep } from "./crash-run";
import { useCrashDatabase, useCrashProcessor } from "./crash-setup";
import { claimsByKey, IDEMPOTENCY } from "./invariant";

// `idem reconcile --concurrency 1` over two stuck claims (one the processor took, one it did not),
// killed after each commit and while each processor answer is in flight (the row lock held).
const TENANT = "crash-reconcile";

describe("crash: idem reconcile killed at every commit and every processor call", () => {
  const database = useCrashDatabase();
  const upstream = useCrashProcessor("reconcile");
  let round = 0;
  /** The processor's charges before this round's own: the console asks, it never charges. */
  let chargesBefore = 0;
  let keys: { taken: string; notTaken: string };

  it("completes or releases each claim once, with its audit row, whatever the kill; the next run does the rest", async () => {
    const { db } = database;
    const { processor } = upstream;
    const report = await crashAtEveryStep({
      db,
      child: cliChild(["reconcile", "--tenant", TENANT, "--concurrency", "1"], {
        DATABASE_URL: database.url,
        IDEM_CONFIG: upstream.configFile,
      }),
      kinds: ["after-commit", "during-call"],
      watched: [IDEMPOTENCY],
      claimsOf: claimsByKey,
      async prepare() {
        round += 1;
        chargesBefore = processor.stats().sideEffects;
        const key = (label: string) => createHash("sha256").update(`crash-reconcile|${round}|${label}`).digest("hex");
        keys = { taken: key("taken"), notTaken: key("not-taken") };
        for (const k of [keys.taken, keys.notTaken])
          await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${k}, ${TENANT}, 'charge_card', 'in_progress', now() - interval '1 hour')`;
        await upstream.charge(keys.taken, 1_000 + round);
      },
      async nextRun() {
        const options = { olderThanMs: null, tool: null, tenant: TENANT, limit: 100, concurrency: 1, dryRun: false };
        await reconcile(db, upstream.config(), options);
      },
      async expectDone() {
        expect(processor.stats().sideEffects - chargesBefore, "the test's one charge, nothing more").toBe(1);
        const rows = await db.idempotency.findMany({ where: { key: { in: [keys.taken, keys.notTaken] } } });
        expect(rows.map((r) => [r.key, r.status])).toEqual([[keys.taken, "completed"]]);
        const actions = await db.auditLog.findMany({
          where: { key: { in: [keys.taken, keys.notTaken] } },
          orderBy: { id: "asc" },
        });
        expect(actions.map((a) => `${a.key === keys.taken ? "taken" : "not taken"} ${a.action}`).sort()).toEqual([
          "not taken record.release",
          "taken record.complete",
        ]);
      },
    });
    // job start, each claim's transaction, job end; each claim's question.
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
