import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { bucketValueMs, latencyBucket } from "@/lib/metrics/latency-histogram";
import type { MetricsWindow } from "@/lib/metrics/metrics-params";
import { MIN_RATE_CALLS, type MetricsFigures, type MetricsReport } from "@/lib/metrics/metrics-report";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { applyBulkResolution } from "@/lib/resolve/bulk-plan";
import { reconcileKeys } from "@/lib/resolve/reconcile-keys";
import { reconcile } from "@/lib/resolve/reconcile";
import { resolveRecord } from "@/lib/resolve/resolve-record";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

/**
 * Time to complete is the writers' alone. Claims two hours old are completed and released by the
 * console's real paths — a single resolve, a bulk apply, the reconciler (its own actor, and a run
 * a person started) — beside writer completions of under ten seconds; every figure is compared
 * with SQL written here over the base tables, read live, from minute slices and from the hourly
 * rollup. The file has a database of its own: it rolls up the current hour, which would freeze
 * it for the run's other files.
 */
const run = randomBytes(3).toString("hex");
const TA = `wl-${run}-a`;
const TB = `wl-${run}-b`;
const H = 3_600_000;
const M = 60_000;
const WRITER_LATENCIES_MS = [40, 180, 420, 900, 1_700, 2_600, 4_100, 8_800];

const OPERATOR: Actor = {
  kind: "user",
  id: `op-${run}`,
  name: `op-${run}@test`,
  displayName: "operator",
  role: "operator",
  tenants: [],
};
const ADMIN: Actor = { ...OPERATOR, id: `admin-${run}`, name: `admin-${run}@test`, role: "admin" };

let database: TestDatabase;
let db: Db;
let processor: DemoUpstream;
let config: IdemConfig;
let serial = 0;
const keyOf = () => createHash("sha256").update(`${run}|${serial++}`).digest("hex");

async function stuckClaim(tenant: string, taken: boolean, ageMs: number): Promise<string> {
  const key = keyOf();
  await db.$executeRawUnsafe(
    `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, 'charge_card', 'in_progress', now() - $3::int * interval '1 millisecond')`,
    key,
    tenant,
    ageMs,
  );
  if (taken) {
    const charged = await fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ card: "c_4242", amount_cents: 1_000 + serial, reference: key }),
    });
    expect(charged.status).toBe(200);
  }
  return key;
}

/** Writer completions of the last few minutes, as a writer's guard writes them (updated_at set). */
async function writerCompletions(tenant: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const latency = WRITER_LATENCIES_MS[i % WRITER_LATENCIES_MS.length]!;
    await db.$executeRawUnsafe(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at)
       VALUES ($1, $2, 'charge_card', 'completed', now() - $3::int * interval '1 second', now() - $3::int * interval '1 second' + $4::int * interval '1 millisecond')`,
      keyOf(),
      tenant,
      60 + i * 7,
      latency,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// The truth, in plain SQL written for this test.

type Truth = {
  writerP50: number | null;
  writerP95: number | null;
  timed: number;
  operatorP50: number | null;
  operatorP95: number | null;
  reconcilerP50: number | null;
  reconcilerP95: number | null;
  byOperator: number;
  byReconciler: number;
};

const asBucket = (ms: number | null) => (ms === null ? null : bucketValueMs(latencyBucket(ms)));

async function truth(report: MetricsReport, tenants: string[]): Promise<Truth> {
  const window = [tenants, report.from, report.to];
  // A writer's completion: its key has no record.complete audit row (the console completes a key at most once).
  const writerSql = `FROM idempotency i WHERE i.tenant = ANY($1::text[]) AND i.status = 'completed' AND i.updated_at >= $2::timestamptz AND i.updated_at < $3::timestamptz
                     AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.key = i.key AND a.action = 'record.complete')`;
  const resolutionsSql = (reconciler: boolean) =>
    `FROM audit_log a WHERE COALESCE(a.tenant, a.before->>'tenant') = ANY($1::text[]) AND a.at >= $2::timestamptz AND a.at < $3::timestamptz
       AND a.action IN ('record.complete', 'record.release', 'record.force_release')
       AND ${reconciler ? "" : "NOT"} (a.actor = 'system:reconciler' OR a.reason LIKE 'reconciler: %')`;
  const writerMs = "extract(epoch FROM i.updated_at - i.created_at) * 1000";
  const resolutionMs = "extract(epoch FROM a.at - (a.before->>'createdAt')::timestamptz) * 1000";
  const one = async (sql: string) => (await db.$queryRawUnsafe<{ n: number | null }[]>(sql, ...window))[0]?.n ?? null;
  const pct = (p: number, ms: string, from: string) =>
    one(`SELECT (percentile_disc(${p}) WITHIN GROUP (ORDER BY ${ms}))::float8 AS n ${from}`);
  return {
    writerP50: asBucket(await pct(0.5, writerMs, writerSql)),
    writerP95: asBucket(await pct(0.95, writerMs, writerSql)),
    timed: (await one(`SELECT count(*)::int AS n ${writerSql}`)) ?? 0,
    operatorP50: asBucket(await pct(0.5, resolutionMs, resolutionsSql(false))),
    operatorP95: asBucket(await pct(0.95, resolutionMs, resolutionsSql(false))),
    reconcilerP50: asBucket(await pct(0.5, resolutionMs, resolutionsSql(true))),
    reconcilerP95: asBucket(await pct(0.95, resolutionMs, resolutionsSql(true))),
    byOperator: (await one(`SELECT count(*)::int AS n ${resolutionsSql(false)}`)) ?? 0,
    byReconciler: (await one(`SELECT count(*)::int AS n ${resolutionsSql(true)}`)) ?? 0,
  };
}

function figuresOf(f: MetricsFigures | undefined): Truth {
  expect(f).toBeDefined();
  return {
    writerP50: f!.completeP50Ms,
    writerP95: f!.completeP95Ms,
    timed: f!.timedCompletions,
    operatorP50: f!.operatorResolveP50Ms,
    operatorP95: f!.operatorResolveP95Ms,
    reconcilerP50: f!.reconcilerResolveP50Ms,
    reconcilerP95: f!.reconcilerResolveP95Ms,
    byOperator: f!.resolvedByOperator,
    byReconciler: f!.resolvedByReconciler,
  };
}

async function assertTrue(report: MetricsReport, label: string): Promise<void> {
  const overall = await truth(report, [TA, TB]);
  expect(figuresOf(report.overall), `${label}: overall`).toEqual(overall);
  expect(figuresOf(report.tools.find((t) => t.tool === "charge_card")), `${label}: charge_card`).toEqual(overall);
  for (const tenant of [TA, TB]) {
    expect(figuresOf(report.tenants.find((t) => t.tenant === tenant)), `${label}: ${tenant}`).toEqual(
      await truth(report, [tenant]),
    );
  }
}

const metrics = (window: MetricsWindow, now: Date) =>
  getMetrics(db, config, ADMIN, { window, tool: null, tenant: null }, now, { rollUp: false });

describe("metrics: time to complete is the writers', console resolutions are counted apart", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url, 4);
    processor = await startDemoProcessor();
    config = parseConfig(
      JSON.stringify({
        tools: {
          charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } },
          configured_only: { stuckAfter: "5m" },
        },
      }),
    );
    await db.$executeRawUnsafe(
      `INSERT INTO tool_snapshot (server, source, tools, taken_by) VALUES ('shop', 'live', $1::jsonb, 'test')`,
      JSON.stringify([
        { name: "charge_card", annotations: { idempotentHint: true } },
        { name: "create_shipment", annotations: { idempotentHint: true } },
        { name: "get_status", annotations: { readOnlyHint: true } },
      ]),
    );

    await writerCompletions(TA, 16);
    await writerCompletions(TB, 9);
    // Two hours stuck, then resolved by each console path.
    const resolved = await stuckClaim(TA, true, 2 * H);
    const bulkComplete = await stuckClaim(TB, true, 2 * H + 10 * M);
    const bulkRelease = await stuckClaim(TB, false, 3 * H);
    const reconciled = [
      await stuckClaim(TA, true, 2 * H + 20 * M),
      await stuckClaim(TA, false, 90 * M),
      await stuckClaim(TB, true, 4 * H),
    ];

    const single = await resolveRecord(db, config, OPERATOR, resolved, {
      action: "complete",
      reason: "processor says charged",
      expectedUpdatedAt: null,
    });
    expect(single.ok).toBe(true);
    const bulk = await applyBulkResolution(db, config, OPERATOR, {
      reason: "cleanup",
      rows: [
        { key: bulkComplete, action: "complete", expectedUpdatedAt: null },
        { key: bulkRelease, action: "release", expectedUpdatedAt: null },
      ],
    });
    expect(bulk.totals.ok).toBe(2);
    const sweep = await reconcile(db, config, {
      olderThanMs: null,
      tool: null,
      tenant: null,
      limit: 100,
      concurrency: 2,
      dryRun: false,
    });
    expect(sweep.totals).toMatchObject({ completed: 2, released: 1 });
    expect(sweep.rows.map((r) => r.key).sort()).toEqual([...reconciled].sort());
    // A run a person started (POST /api/v1/reconcile): under their name, the reconciler's by its reason.
    const byPerson = await stuckClaim(TA, true, 3 * H + 30 * M);
    const http = await reconcileKeys(db, config, OPERATOR, [byPerson], false);
    expect(http.totals.completed).toBe(1);
  }, 60_000);
  afterAll(async () => {
    await processor?.stop();
    await db?.$disconnect();
    await database?.drop();
  });

  it("writers' percentiles leave out the console's completions; operator and reconciler delays are their own — live, from minute slices, from the hourly rollup", async () => {
    const t1 = new Date();
    const live = await metrics("24h", t1);
    expect(live.source.rolledUpSteps).toBe(0);
    expect(live.source.sliceMinutes).toBe(0);
    await assertTrue(live, "live");
    // The plant is what it should be: fast writers, slow resolutions, each path counted where it belongs.
    expect(live.overall.completeP95Ms).toBeLessThan(10_000);
    expect(live.overall.operatorResolveP50Ms).toBeGreaterThan(H);
    expect(live.overall.reconcilerResolveP50Ms).toBeGreaterThan(H);
    expect([live.overall.resolvedByOperator, live.overall.resolvedByReconciler]).toEqual([3, 4]);
    expect(live.overall.timedCompletions).toBe(25);

    try {
      await rolledUpLater(t1, live);
    } finally {
      // The hours rolled "two hours on" are in the future: forget every rollup, for the tests below.
      for (const table of ["metrics_rollup_hour", "metrics_hourly", "metrics_rollup_minute", "metrics_minute"])
        await db.$executeRawUnsafe(`DELETE FROM ${table}`);
    }
  });

  async function rolledUpLater(t1: Date, live: MetricsReport): Promise<void> {
    // Closed hours into the rollup, settled minutes into slices: the 1 h window reads slices and a live tail.
    const t2 = new Date(t1.getTime() + 2 * M);
    await rollUpSettled(db, t2);
    const sliced = await metrics("1h", t2);
    expect(sliced.source.sliceMinutes).toBeGreaterThan(0);
    await assertTrue(sliced, "slices");
    expect(figuresOf(sliced.overall)).toEqual(figuresOf(live.overall));
    const settled24 = await metrics("24h", t2);
    await assertTrue(settled24, "24h after the settle");

    // Two hours on, every hour of the plant is rolled up: the same figures from metrics_hourly alone.
    const t3 = new Date(t1.getTime() + 2 * H);
    await rollUpSettled(db, t3);
    const hourly = await metrics("24h", t3);
    expect(hourly.source.rolledUpSteps).toBeGreaterThan(0);
    expect(hourly.source.countedLiveFrom === null || Date.parse(hourly.source.countedLiveFrom) > t1.getTime()).toBe(
      true,
    );
    await assertTrue(hourly, "hourly");
    expect(figuresOf(hourly.overall)).toEqual(figuresOf(live.overall));
  }

  it("every known tool is listed — the configuration's and the listings' — with zeros, 'never seen' and its declared idempotentHint", async () => {
    const report = await metrics("24h", new Date());
    const byName = new Map(report.tools.map((t) => [t.tool, t]));
    expect([...byName.keys()].sort()).toEqual(["charge_card", "configured_only", "create_shipment", "get_status"]);
    expect(byName.get("charge_card")).toMatchObject({ seen: true, declaredIdempotentHint: true, listedBy: ["shop"] });
    expect(byName.get("create_shipment")).toMatchObject({
      seen: false,
      declaredIdempotentHint: true,
      listedBy: ["shop"],
      executions: 0,
      completed: 0,
      stuckNow: 0,
      resolvedByOperator: 0,
      completeP95Ms: null,
    });
    expect(byName.get("get_status")).toMatchObject({ seen: false, declaredIdempotentHint: null, executions: 0 });
    expect(byName.get("configured_only")).toMatchObject({
      seen: false,
      declaredIdempotentHint: null,
      listedBy: [],
      executions: 0,
    });
    // A tool filter keeps only that tool.
    const one = await getMetrics(
      db,
      config,
      ADMIN,
      { window: "24h", tool: "create_shipment", tenant: null },
      new Date(),
      { rollUp: false },
    );
    expect(one.tools.map((t) => [t.tool, t.seen])).toEqual([["create_shipment", false]]);
  });

  it("a rate over fewer than MIN_RATE_CALLS calls says so, with its sample size, in the headline and each series point", async () => {
    // Events make charge_card a recording tool: three replays 50 minutes ago, a step with no claim.
    const key = keyOf();
    for (let i = 0; i < 3; i++) {
      await db.$executeRawUnsafe(
        `INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, 'charge_card', 'replay_served', now() - interval '50 minutes')`,
        key,
        TA,
      );
    }
    const now = new Date();
    const report = await metrics("1h", now);
    const [row] = await db.$queryRawUnsafe<{ claims: number; events: number }[]>(
      `SELECT (SELECT count(*)::int FROM idempotency WHERE created_at >= $1::timestamptz AND created_at < $2::timestamptz) AS claims,
              (SELECT count(*)::int FROM idempotency_event WHERE kind IN ('replay_served', 'in_flight_rejected') AND at >= $1::timestamptz AND at < $2::timestamptz) AS events`,
      report.from,
      report.to,
    );
    expect(report.overall.suppressionCalls).toBe(row!.claims + row!.events);
    expect(report.overall.smallSample).toBe(row!.claims + row!.events < MIN_RATE_CALLS);
    const withCalls = report.series.filter((p) => (p.calls ?? 0) > 0);
    expect(withCalls.length).toBeGreaterThan(0);
    for (const p of report.series) {
      expect(p.smallSample, p.at).toBe(p.calls !== null && p.calls > 0 && p.calls < MIN_RATE_CALLS);
      if (p.calls === 0) expect(p.suppressionRate).toBeNull();
    }
    // The step holding the three replays: a rate of 100 % over three calls, flagged.
    const replayStep = report.series.find((p) => p.replaysServed === 3);
    expect(replayStep).toMatchObject({ calls: 3, executions: 0, suppressionRate: 1, smallSample: true });
  });

  it("the migration leaves no mixed figure: rolled hours lose the console's completions from the writers' histogram and gain their own", async () => {
    const hour = new Date("2030-01-01T10:00:00.000Z");
    const createdAt = new Date(hour.getTime() - 2 * H);
    const completedAt = new Date(hour.getTime() + 5 * M);
    const key = keyOf();
    // An audit row as applyResolution writes it, for a completion in the rolled hour, and a release by the reconciler.
    const snapshot = (k: string, status: string, updatedAt: string | null) => ({
      key: k,
      tenant: TA,
      subject: null,
      tool: "charge_card",
      status,
      response: null,
      createdAt: createdAt.toISOString(),
      updatedAt,
      version: null,
    });
    await db.$executeRawUnsafe(
      `INSERT INTO audit_log (at, actor, actor_role, action, key, tenant, before, after, reason) VALUES
         ($1::timestamptz, 'op@test', 'operator', 'record.complete', $2, $3, $4::jsonb, $5::jsonb, 'charged'),
         ($1::timestamptz, 'system:reconciler', 'operator', 'record.release', $6, $3, $7::jsonb, NULL, 'reconciler: not taken')`,
      completedAt.toISOString(),
      key,
      TA,
      JSON.stringify(snapshot(key, "in_progress", null)),
      JSON.stringify(snapshot(key, "completed", completedAt.toISOString())),
      keyOf(),
      JSON.stringify(snapshot("x", "in_progress", null)),
    );
    const consoleBucket = String(latencyBucket(completedAt.getTime() - createdAt.getTime()));
    const writerBucket = String(latencyBucket(250));
    // The old, mixed histogram: one writer completion and the console's.
    await db.$executeRawUnsafe(
      `ALTER TABLE metrics_hourly DROP COLUMN operator_latency, DROP COLUMN reconciler_latency`,
    );
    await db.$executeRawUnsafe(
      `ALTER TABLE metrics_minute DROP COLUMN operator_latency, DROP COLUMN reconciler_latency`,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO metrics_hourly (hour, tenant, tool, executions, completed, resolved_by_operator, resolved_by_reconciler, latency) VALUES ($1::timestamptz, $2, 'charge_card', 1, 2, 1, 1, $3::jsonb)`,
      hour.toISOString(),
      TA,
      JSON.stringify({ [writerBucket]: 1, [consoleBucket]: 1 }),
    );
    // The migration's statements as the runner sends them: one simple-protocol query.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(
        readFileSync(path.resolve("prisma/migrations/20261218020000_writer_latency/migration.sql"), "utf8"),
      );
    } finally {
      await client.end();
    }
    const [row] = await db.$queryRawUnsafe<{ latency: object; operator_latency: object; reconciler_latency: object }[]>(
      `SELECT latency, operator_latency, reconciler_latency FROM metrics_hourly WHERE hour = $1::timestamptz AND tenant = $2`,
      hour.toISOString(),
      TA,
    );
    expect(row).toEqual({
      latency: { [writerBucket]: 1 },
      operator_latency: { [consoleBucket]: 1 },
      reconciler_latency: { [String(latencyBucket(5 * M + 2 * H))]: 1 },
    });
    expect(await db.$queryRawUnsafe(`SELECT count(*)::int AS n FROM metrics_minute`)).toEqual([{ n: 0 }]);
  });
});
