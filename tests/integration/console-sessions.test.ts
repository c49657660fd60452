import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkSession, endSession, startSession } from "@/lib/auth/console-sessions";
import { LAST_SEEN_RESOLUTION_MS } from "@/lib/auth/session-policy";
import { disableUser, saveUser } from "@/lib/auth/users";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

const admin = systemAdmin("session-test", { id: "test" });
const policy = { idleMs: 30 * 60_000, maxAgeMs: 12 * 3_600_000 };
const MINUTE = 60_000;

describe("server-side console sessions", () => {
  const db = connectTestDb();
  const run = randomBytes(3).toString("hex");
  let n = 0;
  async function signedIn(role: "viewer" | "operator" = "viewer") {
    n += 1;
    const user = await saveUser(db, admin, { email: `session-${run}-${n}@example.com`, role });
    return { user, sid: await startSession(db, user.id, "vitest") };
  }
  const sessionRow = (sid: string) => db.consoleSession.findUniqueOrThrow({ where: { id: sid } });
  const audit = (sid: string) =>
    db.auditLog.findMany({
      where: { evidence: { path: ["session"], equals: sid } },
      orderBy: { id: "asc" },
      select: { action: true, reason: true, actor: true },
    });

  it("a session carries the user's current role, re-read on every request; last_seen moves at most once a minute", async () => {
    const { user, sid } = await signedIn();
    const opened = await sessionRow(sid);
    expect(await checkSession(db, sid, policy)).toMatchObject({ ok: true, actor: { id: user.id, role: "viewer" } });
    await saveUser(db, admin, { email: user.email, role: "operator", tenants: ["acme"] });
    expect(await checkSession(db, sid, policy)).toMatchObject({
      ok: true,
      actor: { role: "operator", tenants: ["acme"] },
    });

    expect((await sessionRow(sid)).lastSeenAt).toEqual(opened.lastSeenAt); // within the minute: no write
    const later = new Date(opened.lastSeenAt.getTime() + LAST_SEEN_RESOLUTION_MS + 1000);
    await checkSession(db, sid, policy, later);
    expect((await sessionRow(sid)).lastSeenAt).toEqual(later);
    expect(await audit(sid)).toEqual([{ action: "session.start", reason: null, actor: user.email }]);
  });

  it("ends after the idle limit without a request, and stays ended", async () => {
    const { user, sid } = await signedIn();
    const opened = await sessionRow(sid);
    const justUnder = new Date(opened.lastSeenAt.getTime() + 29 * MINUTE);
    expect((await checkSession(db, sid, policy, justUnder)).ok).toBe(true); // and it moves last_seen to then
    const idle = new Date(justUnder.getTime() + 31 * MINUTE);
    expect(await checkSession(db, sid, policy, idle)).toEqual({ ok: false, reason: "idle" });
    expect(await checkSession(db, sid, policy, new Date(justUnder.getTime() + MINUTE))).toEqual({
      ok: false,
      reason: "idle",
    });
    expect(await sessionRow(sid)).toMatchObject({ endedReason: "idle", endedAt: expect.any(Date) });
    expect(await audit(sid)).toEqual([
      { action: "session.start", reason: null, actor: user.email },
      { action: "session.end", reason: "idle", actor: user.email },
    ]);
  });

  it("ends at the absolute limit even when used all along", async () => {
    const { sid } = await signedIn();
    const opened = await sessionRow(sid);
    // A request every 20 minutes: never idle.
    for (let m = 20; m < 12 * 60; m += 20)
      expect((await checkSession(db, sid, policy, new Date(opened.createdAt.getTime() + m * MINUTE))).ok).toBe(true);
    expect(await checkSession(db, sid, policy, new Date(opened.createdAt.getTime() + 12 * 3_600_000))).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("sign-out ends it once; disabling a user ends all of theirs at once", async () => {
    const { sid } = await signedIn();
    await endSession(db, sid, "signed_out");
    await endSession(db, sid, "signed_out");
    expect(await checkSession(db, sid, policy)).toEqual({ ok: false, reason: "signed_out" });
    expect((await audit(sid)).map((a) => a.action)).toEqual(["session.start", "session.end"]);

    const { user, sid: first } = await signedIn("operator");
    const second = await startSession(db, user.id, "another browser");
    await disableUser(db, admin, user.email);
    for (const id of [first, second])
      expect(await checkSession(db, id, policy)).toEqual({ ok: false, reason: "user_disabled" });
    const disable = await db.auditLog.findFirstOrThrow({
      where: { action: "user.disable", actor: "system:session-test" },
      orderBy: { id: "desc" },
    });
    expect(disable.evidence).toEqual({ sessionsEnded: 2 });
  });

  it("an unknown session id is refused", async () => {
    expect(await checkSession(db, "no-such-session", policy)).toEqual({ ok: false, reason: "unknown" });
  });
});
