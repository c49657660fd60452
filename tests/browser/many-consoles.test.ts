import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_THROTTLE } from "@/lib/auth/sign-in-throttle";
import { createToken, revokeToken } from "@/lib/auth/tokens";
import { disableUser, saveUser } from "@/lib/auth/users";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { createPrismaClient } from "@/lib/db/prisma";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { attemptSignIn, signInOverHttp } from "../access/http-session";
import { startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { freePort } from "../helpers/free-port";
import { applyPoolerLimits, startPgBouncer, type PgBouncer } from "../helpers/pgbouncer";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { systemAdmin } from "../helpers/system-admin";

// Two console servers (the real launcher, `serve`, one build) on two ports over one database, both
// through PgBouncer in transaction mode: the console keeps nothing between requests that another
// instance could contradict. Its own database, so the role's pooled limits touch nobody else's.
const run = randomBytes(3).toString("hex");
const TENANT = `many-${run}`;
const ROLLUP_TENANT = `many-rollup-${run}`;
const admin = systemAdmin("many");

describe("two console instances over one database, through PgBouncer", () => {
  let database: TestDatabase;
  let bouncer: PgBouncer;
  let processor: Awaited<ReturnType<typeof startDemoProcessor>>;
  const consoles: ConsoleProcess[] = [];
  let db: ReturnType<typeof createPrismaClient>;
  let claimsMinute: Date;

  beforeAll(async () => {
    database = await createTestDatabase();
    await applyPoolerLimits(database.url);
    bouncer = await startPgBouncer(database.url);
    processor = await startDemoProcessor();
    const configFile = path.join(mkdtempSync(path.join(tmpdir(), "idem-many-")), "idem.config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } },
        metrics: { rollupEvery: "1s" },
      }),
    );
    db = createPrismaClient(database.url, 2);
    // One after the other: the first builds the console if the build is stale, the second finds it current.
    for (let i = 0; i < 2; i += 1)
      consoles.push(
        await startConsoleProcess({
          command: "serve",
          port: await freePort(),
          env: {
            DATABASE_URL: bouncer.urlFor(database.url),
            DATABASE_MIGRATE_URL: database.url, // migrations hold a session lock: never through the pooler
            IDEM_CONFIG: configFile,
            IDEM_DEMO: "1", // password sign-in (the credentials provider) without the demo world
            IDEM_DEMO_ALLOW_PRODUCTION: "1",
          },
        }),
      );
    // Claims of this minute, for the background roll-up to count once it settles (below): no test here reads metrics.
    claimsMinute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    for (let i = 0; i < 3; i += 1) {
      const key = createHash("sha256").update(`many-rollup|${run}|${i}`).digest("hex");
      await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${ROLLUP_TENANT}, 'charge_card', 'in_progress', ${claimsMinute})`;
    }
  }, 600_000);

  afterAll(async () => {
    for (const console of consoles) await console.stop();
    await db?.$disconnect();
    await processor?.stop();
    await bouncer?.stop();
    await database?.drop();
  });

  const me = (console: ConsoleProcess, credentials: { cookie?: string; bearer?: string }) =>
    fetch(`${console.baseUrl}/api/v1/me`, {
      headers: credentials.cookie ? { cookie: credentials.cookie } : { authorization: `Bearer ${credentials.bearer}` },
    });

  it("a session made on one works on the other; disabling its user ends it on both at once", async () => {
    const [a, b] = consoles as [ConsoleProcess, ConsoleProcess];
    const email = `session-${run}@many.test`;
    await saveUser(db, admin, { email, role: "operator", password: DEMO_PASSWORD });
    const session = await signInOverHttp(a.baseUrl, email);
    for (const console of [a, b]) {
      const answer = await me(console, session);
      expect(answer.status, console.baseUrl).toBe(200);
      expect(await answer.json()).toMatchObject({ kind: "user", name: email, role: "operator" });
    }
    await disableUser(db, admin, email);
    // No wait: the very next request on either instance is refused.
    expect([(await me(a, session)).status, (await me(b, session)).status]).toEqual([401, 401]);
  });

  it("a revoked token stops on both at once", async () => {
    const [a, b] = consoles as [ConsoleProcess, ConsoleProcess];
    const { token, summary } = await createToken(db, admin, { name: `many-${run}`, role: "viewer" });
    // Both instances have answered this token (any per-instance memory of it is warm) …
    for (let i = 0; i < 3; i += 1)
      expect([(await me(a, { bearer: token })).status, (await me(b, { bearer: token })).status]).toEqual([200, 200]);
    await revokeToken(db, admin, summary.id);
    // … and the next request on each is refused.
    expect([(await me(a, { bearer: token })).status, (await me(b, { bearer: token })).status]).toEqual([401, 401]);
  });

  it("the sign-in throttle counts failures on both: ten wrong passwords alternated lock the account on each", async () => {
    const [a, b] = consoles as [ConsoleProcess, ConsoleProcess];
    const email = `throttle-${run}@many.test`;
    await saveUser(db, admin, { email, role: "viewer", password: "the-right-one" });
    for (let i = 0; i < SIGN_IN_THROTTLE.refuseAccountAt; i += 1) {
      const console = i % 2 === 0 ? a : b;
      expect((await attemptSignIn(console.baseUrl, email, `wrong-${i}`)).error).toBe("CredentialsSignin");
    }
    // Five failures on each instance: either alone would still let the right password in.
    expect(await attemptSignIn(a.baseUrl, email, "the-right-one")).toEqual({ ok: false, error: "Throttled" });
    expect(await attemptSignIn(b.baseUrl, email, "the-right-one")).toEqual({ ok: false, error: "Throttled" });
    const failures = await db.auditLog.count({
      where: { action: "auth.sign_in_failed", evidence: { path: ["account"], equals: email } },
    });
    expect(failures).toBe(SIGN_IN_THROTTLE.refuseAccountAt + 2);
  }, 120_000);

  it("20 concurrent resolves of one stuck key over both: exactly 1 success, 19 conflicts, one audit row", async () => {
    const { token } = await createToken(db, admin, { name: `many-op-${run}`, role: "operator" });
    const key = createHash("sha256").update(`many|${run}`).digest("hex");
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${TENANT}, 'charge_card', 'in_progress', now() - interval '1 hour')`;
    const charged = await fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ card: "c_4242", amount_cents: 900, reference: key }),
    });
    expect(charged.status).toBe(200);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${consoles[i % 2]!.baseUrl}/api/v1/records/${key}/resolve`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ action: "complete", reason: "the processor says taken", expectedUpdatedAt: null }),
        }),
      ),
    );
    const byInstance = [0, 1].map((n) => responses.filter((_, i) => i % 2 === n).map((r) => r.status));
    expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array<number>(19).fill(409)]);
    expect(byInstance.every((statuses) => statuses.length === 10)).toBe(true);
    expect(await db.auditLog.count({ where: { key } })).toBe(1);
    expect(await db.idempotency.findUnique({ where: { key }, select: { status: true } })).toEqual({
      status: "completed",
    });
  });

  it("both instances roll the metrics up in the background, with no metrics request: each minute once", async () => {
    // The minute settles 10 s after it ends: at most 70 s after the claims were written.
    const deadline = Date.now() + 120_000;
    const rolled = () =>
      db.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM metrics_rollup_minute WHERE minute = ${claimsMinute}`;
    while ((await rolled())[0]!.n === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1_000));
    const [slice] = await db.$queryRaw<{ executions: number }[]>`
      SELECT COALESCE(sum(executions), 0)::int AS executions FROM metrics_minute WHERE minute = ${claimsMinute} AND tenant = ${ROLLUP_TENANT}`;
    expect(slice!.executions, "the minute's slice counts the three claims once").toBe(3);
    // Closed hours were rolled by the servers too (a fresh database: every hour of the catch-up, empty).
    const [hours] = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM metrics_rollup_hour`;
    expect(hours!.n).toBeGreaterThan(0);
    for (const console of consoles) expect(console.output()).not.toContain("metrics roll-up failed");
  }, 150_000);

  it("PgBouncer served both instances' connections with fewer server connections", async () => {
    const dbName = new URL(database.url).pathname.slice(1);
    const pool = (await bouncer.show("POOLS")).find((p) => p.database === dbName);
    const servers = (await bouncer.show("SERVERS")).filter((s) => s.database === dbName).length;
    const clients = (await bouncer.show("CLIENTS")).filter((c) => c.database === dbName).length;
    console.log(`two consoles through pgbouncer: ${clients} client connections on ${servers} server connections`, pool);
    expect(servers).toBeGreaterThan(0); // the consoles' queries went through PgBouncer
    expect(servers).toBeLessThanOrEqual(4); // default_pool_size
  });
});
