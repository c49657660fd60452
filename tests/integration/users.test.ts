import { describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/passwords";
import { checkSession, startSession } from "@/lib/auth/console-sessions";
import { disableUser, saveUser } from "@/lib/auth/users";
import { seedDemoUsers, DEMO_USERS } from "@/tools/demo/demo-users";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

const admin = systemAdmin("user-test", { id: "test" });

describe("console users", () => {
  const db = connectTestDb();

  it("re-reads the role on every load, so a change applies at once; a disabled user loads as nobody", async () => {
    const saved = await saveUser(db, admin, { email: "Role.Change@Example.com", role: "viewer" });
    expect(saved.email).toBe("role.change@example.com");
    const sid = await startSession(db, saved.id, null);
    const policy = { idleMs: 60_000, maxAgeMs: 3_600_000 };
    expect(await checkSession(db, sid, policy)).toMatchObject({ ok: true, actor: { role: "viewer" } });
    await saveUser(db, admin, { email: "role.change@example.com", role: "operator", tenants: ["acme"] });
    expect(await checkSession(db, sid, policy)).toMatchObject({
      ok: true,
      actor: { role: "operator", tenants: ["acme"] },
    });
    await disableUser(db, admin, "role.change@example.com");
    expect(await checkSession(db, sid, policy)).toEqual({ ok: false, reason: "user_disabled" });
    const actions = (await db.auditLog.findMany({ where: { actor: "system:user-test" }, orderBy: { id: "asc" } })).map(
      (a) => a.action,
    );
    expect(actions).toEqual(["user.create", "user.update", "user.disable"]);
  });

  it("rejects a malformed email without writing", async () => {
    const before = await db.consoleUser.count();
    await expect(saveUser(db, admin, { email: "not an email", role: "viewer" })).rejects.toThrow(/email/);
    expect(await db.consoleUser.count()).toBe(before);
  });

  it("seeds the demo accounts once, with hashed passwords", async () => {
    expect(await seedDemoUsers(db, admin)).toBe(DEMO_USERS.length);
    expect(await seedDemoUsers(db, admin)).toBe(0);
    const viewer = await db.consoleUser.findUniqueOrThrow({ where: { email: "viewer@demo.test" } });
    expect(viewer.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword("demo", viewer.passwordHash!)).toBe(true);
    expect(await verifyPassword("wrong", viewer.passwordHash!)).toBe(false);
  });
});
