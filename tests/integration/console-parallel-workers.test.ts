import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { CONSOLE_APPLICATION_NAME } from "@/lib/db/application-name";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { startLockSampler } from "@/tools/bench/lock-sampler";

// The console's sessions start no parallel workers (database.parallelWorkers, lib/db/client.ts), and
// bench-writers' sampler counts those a console statement does start, by statement. A plan is pushed
// to parallel with force_parallel_mode: a Gather over pg_sleep, one worker that sleeps while sampled.
const url = inject("databaseUrl");
const PUSH_TO_PARALLEL = "SET force_parallel_mode = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0";

describe.skipIf(inject("databaseKind") !== "postgres")("the console's parallel workers", () => {
  const clients: pg.Client[] = [];
  const prismas: Db[] = [];
  afterAll(async () => {
    await Promise.all([...clients.map((c) => c.end()), ...prismas.map((p) => p.$disconnect())]);
  });

  async function session(applicationName: string, parallelWorkers: number): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: url,
      application_name: applicationName,
      options: `-c max_parallel_workers_per_gather=${parallelWorkers}`,
    });
    await client.connect();
    await client.query(PUSH_TO_PARALLEL);
    clients.push(client);
    return client;
  }

  /** Workers launched by a statement in the session, from its EXPLAIN ANALYZE. */
  async function workersLaunched(run: (sql: string) => Promise<{ rows: unknown[] }>): Promise<number> {
    const { rows } = await run("EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) SELECT pg_sleep(0.01)");
    const plan = (rows[0] as { "QUERY PLAN": [{ Plan: { "Workers Launched"?: number } }] })["QUERY PLAN"][0].Plan;
    return plan["Workers Launched"] ?? 0;
  }

  it("a console client made with parallelWorkers 0 launches none, even for a plan pushed to parallel", async () => {
    const prisma = createPrismaClient(url, 1, undefined, CONSOLE_APPLICATION_NAME, 0);
    prismas.push(prisma);
    const launched = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL force_parallel_mode = on");
      return workersLaunched(async (sql) => ({ rows: await tx.$queryRawUnsafe<unknown[]>(sql) }));
    });
    expect(launched).toBe(0);
    // The same statement on a session with the server's own setting does launch one: the test can tell.
    const open = await session("another-client", 2);
    expect(await workersLaunched((sql) => open.query(sql))).toBe(1);
  });

  it("bench-writers' sampler counts the workers of console statements, by statement, and no one else's", async () => {
    const sampler = await startLockSampler(url, "idem-bench-writer", 20);
    const consoleSession = await session(CONSOLE_APPLICATION_NAME, 2);
    const other = await session("another-client", 2);
    await Promise.all([
      consoleSession.query("SELECT pg_sleep(0.6) AS console_sleep"),
      other.query("SELECT pg_sleep(0.6)"),
    ]);
    const report = await sampler.stop();
    const counted = Object.entries(report.consoleParallelWorkers);
    expect(counted.length, JSON.stringify(counted)).toBe(1);
    expect(counted[0]![0]).toBe("SELECT pg_sleep(0.6) AS console_sleep");
    expect(counted[0]![1]).toBeGreaterThanOrEqual(5);
  });
});
