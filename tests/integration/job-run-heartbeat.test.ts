import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deadJobRuns, listJobRuns, startJobRun } from "@/lib/audit/job-runs";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { toExposition } from "@/lib/metrics/prometheus-exposition";
import { readScrapeFigures } from "@/lib/metrics/scrape-figures";
import { idemNodeArgs } from "../helpers/idem-command";
import { runCli } from "../helpers/run-cli";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// Its own database: "did not finish" is about every run of a job, and other files trim the shared one.
const OLD_ROWS = 30_000;
const BEAT = "100ms";
const admin: Actor = { kind: "system", id: "t", name: "job-run-test", displayName: "t", role: "admin", tenants: [] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("job runs that say when they died (real PostgreSQL, a real kill -9 of the CLI)", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url);
  }, 120_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  it("records a run as it starts, writes its progress with each beat, and its end", async () => {
    const run = await startJobRun(db, { job: "reconcile", actor: "system:beat-test", dryRun: false }, 30);
    const row = () => db.jobRun.findFirstOrThrow({ where: { actor: "system:beat-test" } });
    const started = await row();
    expect(started).toMatchObject({ finishedAt: null, heartbeatMs: 30, completed: 0, error: null });
    run.progress({ candidates: 9, completed: 4 });
    await expect.poll(async () => (await row()).completed, { timeout: 5_000 }).toBe(4);
    expect((await row()).heartbeatAt.getTime()).toBeGreaterThan(started.heartbeatAt.getTime());
    await run.finish({ candidates: 9, completed: 7, released: 1, leftUnknown: 1 });
    expect(await row()).toMatchObject({ completed: 7, released: 1, leftUnknown: 1, error: null });
    expect((await row()).finishedAt).not.toBeNull();
    expect((await listJobRuns(db, { job: "reconcile", limit: 5 }, new Date()))[0]?.state).toBe("finished");
  });

  it("records why a run that threw ended, with what it had done", async () => {
    const run = await startJobRun(db, { job: "reconcile", actor: "system:fail-test", dryRun: false }, 1_000);
    await run.fail(new Error("the processor's certificate expired"), { candidates: 3, completed: 1 });
    const row = await db.jobRun.findFirstOrThrow({ where: { actor: "system:fail-test" } });
    expect(row).toMatchObject({ error: "the processor's certificate expired", completed: 1 });
    expect(row.finishedAt).not.toBeNull();
    const [listed] = await listJobRuns(db, { job: "reconcile", limit: 1 }, new Date());
    expect(listed).toMatchObject({ state: "failed", error: "the processor's certificate expired" });
  });

  it("a trim killed mid-way reads 'did not finish' everywhere, and the next run names it and finishes the rest", async () => {
    await db.$executeRaw`
      INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at)
      SELECT md5('job-run-' || i), 'acme', 'charge_card', 'completed', now() - interval '10 days', now() - interval '10 days'
        FROM generate_series(1, ${OLD_ROWS}) AS i`;
    const env = { ...process.env, DATABASE_URL: database.url, IDEM_JOB_HEARTBEAT: BEAT, IDEM_DEBUG: "" };
    // Its own process group, so the kill reaches anything it started.
    const cli = spawn(process.execPath, [...idemNodeArgs(), "trim", "--batch", "20"], {
      env,
      stdio: "ignore",
      detached: true,
    });
    const trimRow = () => db.jobRun.findFirst({ where: { job: "trim" }, orderBy: { startedAt: "desc" } });
    try {
      await expect
        .poll(async () => (await trimRow())?.deleted ?? 0, { timeout: 60_000, interval: 50 })
        .toBeGreaterThan(0);
    } finally {
      process.kill(-cli.pid!, "SIGKILL");
    }
    await new Promise((r) => cli.once("exit", r));
    const dead = (await trimRow())!;
    expect(dead.finishedAt).toBeNull();
    const left = await db.idempotency.count();
    expect(left).toBeGreaterThan(0); // killed mid-way, not after the end
    expect(dead.deleted).toBeLessThanOrEqual(OLD_ROWS - left); // what it said it did, it did

    // Running while it beats; dead once six beats have passed without one.
    expect((await listJobRuns(db, { job: "trim", limit: 1 }, dead.heartbeatAt))[0]?.state).toBe("running");
    await sleep(6 * 100 + 400);
    const now = new Date();
    expect((await listJobRuns(db, { job: "trim", limit: 1 }, now))[0]?.state).toBe("did not finish");
    const deadRuns = await deadJobRuns(db, now);
    expect(deadRuns.trim).toMatchObject({ count: 1, newest: { id: dead.id, deleted: dead.deleted } });
    expect(deadRuns.reconcile.count).toBe(0);
    const figures = await readScrapeFigures(db, parseConfig("{}"), admin, now);
    const text = await toExposition(figures, { version: "test", consoleUrl: "http://console.test" });
    expect(text).toContain('idem_job_runs_unfinished{task="trim"} 1\n');
    expect(text).toContain('idem_job_runs_unfinished{task="reconcile"} 0\n');
    const listing = await runCli(["jobs", "--job", "trim"], env);
    expect(listing.code).toBe(0);
    expect(listing.stdout).toMatch(/trim\s+did not finish \(last heartbeat /);

    const next = await runCli(["trim", "--batch", "5000"], env);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(
      `idem trim: the previous trim run (${dead.actor}, started ${dead.startedAt.toISOString()}, last heartbeat`,
    );
    expect(next.stderr).toContain(
      `did not finish: it had deleted ${dead.deleted.toLocaleString("en")} rows and events`,
    );
    expect(await db.idempotency.count()).toBe(0); // the rest is finished
    const follower = (await trimRow())!;
    expect(follower).toMatchObject({ followsRun: dead.id, error: null, deleted: left });
    expect(follower.finishedAt).not.toBeNull();
    expect((await deadJobRuns(db, new Date())).trim.count).toBe(0);
    const after = await toExposition(await readScrapeFigures(db, parseConfig("{}"), admin, new Date()), {
      version: "test",
      consoleUrl: "http://console.test",
    });
    expect(after).toContain('idem_job_runs_unfinished{task="trim"} 0\n');

    // A third run finds nobody left to name.
    const third = await runCli(["trim"], env);
    expect(third.stderr).not.toContain("did not finish");
  }, 180_000);
});
