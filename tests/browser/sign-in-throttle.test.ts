import { randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { SIGN_IN_THROTTLE } from "@/lib/auth/sign-in-throttle";
import { saveUser } from "@/lib/auth/users";
import { attemptSignIn } from "../access/http-session";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const admin = systemAdmin("throttle-http");

const signIn = (email: string, password: string) => attemptSignIn(baseUrl, email, password);

// The finding: 50 wrong passwords in a row, each answered at once, then the right one worked, and no
// audit row. Now the account locks after ten and every failure is in the audit log.
describe("password sign-in over HTTP: throttled and audited", () => {
  const db = connectTestDb();

  it("locks an account after ten wrong passwords, the right one included, and audits each", async () => {
    const email = `throttled-${run}@throttle.test`;
    await saveUser(db, admin, { email, role: "viewer", password: "the-right-one" });
    expect((await signIn(email, "the-right-one")).ok).toBe(true);
    for (let i = 0; i < SIGN_IN_THROTTLE.refuseAccountAt; i++)
      expect((await signIn(email, `wrong-${i}`)).error).toBe("CredentialsSignin");
    expect(await signIn(email, "the-right-one")).toEqual({ ok: false, error: "Throttled" });
    const audited = await db.auditLog.findMany({
      where: { action: "auth.sign_in_failed", evidence: { path: ["account"], equals: email } },
      select: { reason: true },
      orderBy: { id: "asc" }, // in the order written: the throttled one last
    });
    expect(audited.map((a) => a.reason?.split(":")[0])).toEqual([
      ...Array<string>(SIGN_IN_THROTTLE.refuseAccountAt).fill("wrong password"),
      "throttled",
    ]);
    // The page names the wait.
    const page = await fetch(`${baseUrl}/sign-in?error=Throttled`);
    expect(await page.text()).toContain("Too many failed sign-ins");
    // Another test's rows of this address must not lock the other tests' demo sign-ins.
    await db.signInFailure.deleteMany({ where: { account: email } });
  }, 120_000);
});
