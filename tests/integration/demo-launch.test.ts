import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { launchDemoWorld } from "@/lib/cli/demo-launch";
import { findRunningDemo } from "@/lib/cli/demo-record";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient } from "@/lib/db/prisma";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { resetEnvironment } from "@/lib/config/environment";

const admin: Actor = {
  kind: "user",
  id: "demo-launch",
  name: "demo-launch@test",
  displayName: "demo launch test",
  role: "admin",
  tenants: [],
};

// What `npm run demo` does to an empty database, with one hour of history instead of 48.
describe("the demo launcher", () => {
  let database: TestDatabase | null = null;
  const env = {
    IDEM_DEMO_HISTORY_HOURS: process.env.IDEM_DEMO_HISTORY_HOURS,
    IDEM_DATA_DIR: process.env.IDEM_DATA_DIR,
  };
  afterAll(async () => {
    process.env.IDEM_DEMO_HISTORY_HOURS = env.IDEM_DEMO_HISTORY_HOURS;
    process.env.IDEM_DATA_DIR = env.IDEM_DATA_DIR;
    await database?.drop();
  });

  it("writes history and the processor's side-effect report, so the metrics show side effects per operation", async () => {
    database = await createTestDatabase();
    process.env.IDEM_DEMO_HISTORY_HOURS = "1";
    process.env.IDEM_DATA_DIR = mkdtempSync(path.join(tmpdir(), "idem-demo-launch-"));
    resetEnvironment();
    // As on the embedded database (no autovacuum): the statistics after the history are the launcher's own ANALYZE.
    const setup = new pg.Client({ connectionString: database.url });
    await setup.connect();
    await setup.query("ALTER TABLE idempotency SET (autovacuum_enabled = false)").finally(() => setup.end());
    // An earlier start's background roll-up froze the hours the history is about to be written into.
    const earlier = createPrismaClient(database.url, 2);
    await rollUpSettled(earlier, new Date()).finally(() => earlier.$disconnect());
    const demo = await launchDemoWorld(database.url);
    try {
      // The CLI beside a running demo finds the configuration it wrote (lib/cli/cli-config.ts).
      expect(findRunningDemo()).toMatchObject({ pid: process.pid, configFile: demo.configFile });
      const pool = new pg.Pool({ connectionString: database.url, max: 2 });
      try {
        const [claims] = (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM idempotency")).rows;
        const [reported] = (
          await pool.query<{ operations: number }>(
            "SELECT COALESCE(sum(operations), 0)::int AS operations FROM processor_side_effect_count",
          )
        ).rows;
        expect(claims!.n).toBeGreaterThan(100);
        expect(reported!.operations).toBeGreaterThan(0);
        // The history is analysed: the records facets may estimate from statistics that describe it.
        const [stats] = (
          await pool.query<{ reltuples: number; analyzed: boolean }>(
            "SELECT reltuples::float8 AS reltuples, pg_stat_get_last_analyze_time(oid) IS NOT NULL AS analyzed FROM pg_class WHERE oid = 'idempotency'::regclass",
          )
        ).rows;
        expect(stats!.analyzed).toBe(true);
        expect(stats!.reltuples).toBeGreaterThan(100);
        // The shop's MCP server listed once, by the CLI, audited: the Tools page has a listing from the first look.
        const snapshots = await pool.query<{ server: string; tools: number; error: string | null; taken_by: string }>(
          "SELECT server, jsonb_array_length(tools)::int AS tools, error, taken_by FROM tool_snapshot",
        );
        expect(snapshots.rows).toEqual([
          { server: "shop", tools: expect.any(Number), error: null, taken_by: expect.stringMatching(/^cli \(/) },
        ]);
        expect(snapshots.rows[0]!.tools).toBeGreaterThanOrEqual(5);
        const audit = await pool.query<{ action: string }>(
          "SELECT action FROM audit_log WHERE action IN ('tools.refresh', 'metrics.recount') ORDER BY action",
        );
        expect(audit.rows.map((r) => r.action)).toEqual(["metrics.recount", "tools.refresh"]);
      } finally {
        await pool.end();
      }
      const db = createPrismaClient(database.url, 2);
      try {
        const report = await getMetrics(
          db,
          parseConfig(JSON.stringify(demo.world.config)),
          admin,
          { window: "24h", tool: "charge_card", tenant: null },
          new Date(),
        );
        // A charge is performed once per reference however often it is asked: one side effect per operation.
        expect(report.overall.sideEffectsPerOperation).toBe(1);
        // Counted again after the history landed in frozen hours: every charge_card claim of the last hour is there.
        const [claims] = await db.$queryRaw<{ n: bigint }[]>`
          SELECT count(*) AS n FROM idempotency WHERE tool = 'charge_card' AND created_at >= now() - interval '2 hours'`;
        expect(report.overall.executions).toBeGreaterThanOrEqual(Number(claims!.n));
      } finally {
        await db.$disconnect();
      }
    } finally {
      await demo.stop();
    }
    expect(findRunningDemo(), "a stopped demo is not found").toBeNull();
  }, 180_000);
});
