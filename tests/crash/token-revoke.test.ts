import { describe, expect, it } from "vitest";
import { createToken, revokeToken } from "@/lib/auth/tokens";
import type { Actor } from "@/lib/identity/actor";
import { cliChild, crashAtEveryStep } from "./crash-run";
import { useCrashDatabase } from "./crash-setup";
import { API_TOKEN, type ClaimsOf } from "./invariant";

// `idem token revoke <id>`, killed after its commit.
const admin: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };
const byTokenId: ClaimsOf = (row) =>
  row.action === "token.revoke" ? [{ ids: [`api_token:${(row.before as { id: string }).id}`] }] : [];

describe("crash: idem token revoke killed at its commit", () => {
  const database = useCrashDatabase();
  let round = 0;
  let id = "";

  it("revokes with its one audit row, or neither; the same command again finishes it", async () => {
    const { db } = database;
    const report = await crashAtEveryStep({
      db,
      child: () => cliChild(["token", "revoke", id], { DATABASE_URL: database.url }),
      kinds: ["after-commit"],
      watched: [API_TOKEN],
      claimsOf: byTokenId,
      async prepare() {
        round += 1;
        id = (await createToken(db, admin, { name: `crash-revoke-${round}`, role: "operator" })).summary.id;
      },
      async nextRun() {
        const token = await db.apiToken.findUniqueOrThrow({ where: { id } });
        if (token.revokedAt === null) await revokeToken(db, admin, id);
      },
      async expectDone() {
        expect((await db.apiToken.findUniqueOrThrow({ where: { id } })).revokedAt).not.toBeNull();
        const audit = await db.auditLog.findMany({ where: { action: "token.revoke" } });
        expect(audit.filter((a) => (a.before as { id: string }).id === id)).toHaveLength(1);
      },
    });
    expect(report.points).toEqual(["after-commit:1"]);
  }, 120_000);
});
