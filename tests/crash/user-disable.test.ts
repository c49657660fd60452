import { describe, expect, it } from "vitest";
import { disableUser, saveUser } from "@/lib/auth/users";
import type { Actor } from "@/lib/identity/actor";
import { cliChild, crashAtEveryStep } from "./crash-run";
import { useCrashDatabase } from "./crash-setup";
import { CONSOLE_USER, type ClaimsOf, type Watched } from "./invariant";

// `idem user disable <email>` on a user with a live session, killed after its commit.
const admin: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };
const SESSION: Watched = { table: "console_session", id: "id", fingerprint: "concat_ws('|', ended_at, ended_reason)" };
/** The user by id; the sessions it ended by count (evidence.sessionsEnded). */
const userClaims: ClaimsOf = (row) =>
  row.action === "user.disable"
    ? [
        { ids: [`console_user:${(row.before as { id: string }).id}`] },
        { table: "console_session", count: (row.evidence as { sessionsEnded: number }).sessionsEnded },
      ]
    : [];

describe("crash: idem user disable killed at its commit", () => {
  const database = useCrashDatabase();
  let round = 0;
  let email = "";

  it("disables the user and ends the session with one audit row, or neither; the same command again finishes it", async () => {
    const { db } = database;
    const report = await crashAtEveryStep({
      db,
      child: () => cliChild(["user", "disable", email], { DATABASE_URL: database.url }),
      kinds: ["after-commit"],
      watched: [CONSOLE_USER, SESSION],
      claimsOf: userClaims,
      async prepare() {
        round += 1;
        email = `crash-${round}@example.com`;
        await saveUser(db, admin, { email, role: "operator" });
        const user = await db.consoleUser.findUniqueOrThrow({ where: { email } });
        await db.consoleSession.create({ data: { id: `crash-session-${round}`, userId: user.id } });
      },
      async nextRun() {
        const user = await db.consoleUser.findUniqueOrThrow({ where: { email } });
        if (user.disabledAt === null) await disableUser(db, admin, email);
      },
      async expectDone() {
        const user = await db.consoleUser.findUniqueOrThrow({ where: { email }, include: { sessions: true } });
        expect(user.disabledAt).not.toBeNull();
        expect(user.sessions.map((s) => s.endedReason)).toEqual(["user_disabled"]);
        const audit = await db.auditLog.findMany({ where: { action: "user.disable" } });
        expect(audit.filter((a) => (a.before as { id: string }).id === user.id)).toHaveLength(1);
      },
    });
    expect(report.points).toEqual(["after-commit:1"]);
  }, 120_000);
});
