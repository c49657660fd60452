import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { allowRepeat } from "@/lib/resolve/allow-repeat";
import { cliChild, crashAtEveryStep } from "./crash-run";
import { useCrashDatabase } from "./crash-setup";
import { claimsByKey, IDEMPOTENCY } from "./invariant";

// `idem allow-repeat <key> --reason … --yes` on a completed record, killed after its commit.
const support: Actor = {
  kind: "system",
  id: "crash",
  name: "crash-test",
  displayName: "t",
  role: "operator",
  tenants: [],
};
const REASON = "customer wants a second box on purpose";

describe("crash: idem allow-repeat killed at its commit", () => {
  const database = useCrashDatabase();
  let round = 0;
  let key = "";

  it("deletes the row with its one audit row, or neither; the same command again finishes it", async () => {
    const { db } = database;
    const report = await crashAtEveryStep({
      db,
      child: () => cliChild(["allow-repeat", key, "--reason", REASON, "--yes"], { DATABASE_URL: database.url }),
      kinds: ["after-commit"],
      watched: [IDEMPOTENCY],
      claimsOf: claimsByKey,
      async prepare() {
        round += 1;
        key = createHash("sha256").update(`crash-allow-repeat|${round}`).digest("hex");
        await db.$executeRaw`
          INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at)
          VALUES (${key}, 'acme', 'ship_parcel', 'completed', '{"parcel": "p_1"}', now() - interval '1 hour', now() - interval '59 minutes')`;
      },
      async nextRun() {
        const row = await db.idempotency.findUnique({ where: { key } });
        if (!row) return; // the killed run had committed: nothing is left to do
        const version = row.updatedAt?.toISOString() ?? null;
        const outcome = await allowRepeat(db, support, key, { reason: REASON, expectedUpdatedAt: version });
        expect(outcome.ok).toBe(true);
      },
      async expectDone() {
        expect(await db.idempotency.findUnique({ where: { key } })).toBeNull();
        expect((await db.auditLog.findMany({ where: { key } })).map((a) => a.action)).toEqual(["record.allow_repeat"]);
      },
    });
    expect(report.points).toEqual(["after-commit:1"]);
  }, 120_000);
});
