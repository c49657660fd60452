import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { bucketValueMs, latencyBucket } from "@/lib/metrics/latency-histogram";
import {
  UNRECORDED_TOOL,
  parseMetricsQuery,
  type MetricsQuery,
  type MetricsWindow,
} from "@/lib/metrics/metrics-params";
import type { MetricsFigures, MetricsReport } from "@/lib/metrics/metrics-report";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { lastClosedMinute, rollUpClosedMinutes } from "@/lib/metrics/minute-rollup";
import { lastClosedHour, rollUpClosedHours } from "@/lib/metrics/rollup";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { connectTestDb } from "../helpers/db";

/**
 * The figures the metrics API returns, against plain SQL over the base tables. The dataset is
 * deterministic and lives in 2031 under this file's own tenants (other files share the
 * database): rows over ten hours and four tools (two whose writers record events, one that
 * records none, and rows without a tool), completions inside and across hours, completions
 * without updated_at, claims released before and after their hour was rolled up, a completed
 * row deleted (trim) after roll-up, a late completion after roll-up, then a five-hour gap in the
 * roll-ups before they catch up.
 */
const db = connectTestDb();
const run = randomBytes(3).toString("hex");
const TA = `mx-${run}-a`;
const TB = `mx-${run}-b`;
const GONE = `metrics_test_gone_${run}`;
const H0 = Date.parse("2031-03-10T00:00:00.000Z");
const H = 3_600_000;
const M = 60_000;
const at = (ms: number) => new Date(H0 + ms);

const config = parseConfig(
  JSON.stringify({
    tools: { charge_card: { stuckAfter: "5m" }, create_shipment: { stuckAfter: "1h" } },
    defaultStuckAfter: "10m",
  }),
);
const RECORDING_TOOLS = ["charge_card", "create_shipment"];
const TOOLS: (string | null)[] = ["charge_card", "create_shipment", "silent_tool", null];

function actor(tenants: string[]): Actor {
  return {
    kind: "user",
    id: `metrics-${run}`,
    name: `metrics-${run}@test`,
    displayName: "metrics test",
    role: "viewer",
    tenants,
  };
}
const ME = actor([TA, TB]);

type Row = {
  key: string;
  tenant: string;
  tool: string | null;
  status: string;
  createdAt: Date;
  updatedAt: Date | null;
};
let serial = 0;
const keyOf = () => createHash("sha256").update(`${run}|${serial++}`).digest("hex");

// A small deterministic generator: the same dataset every run.
let seed = 20310310;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const LATENCIES_MS = [0.4, 37, 137, 911, 2_517, 9_301, 41_777, 183_000];

/** Claims of hours [fromHour, toHour), each tool and tenant, with their completions and events. */
function generate(
  fromHour: number,
  toHour: number,
): { rows: Row[]; events: { key: string; tenant: string; tool: string | null; kind: string; at: Date }[] } {
  const rows: Row[] = [];
  const events: { key: string; tenant: string; tool: string | null; kind: string; at: Date }[] = [];
  for (let h = fromHour; h < toHour; h++) {
    for (const tool of TOOLS) {
      for (const tenant of [TA, TB]) {
        const n = 2 + Math.floor(rand() * 4);
        for (let i = 0; i < n; i++) {
          const createdAt = at(h * H + Math.floor(rand() * 58 * M) + 1_000);
          const r = rand();
          let status = "completed";
          let updatedAt: Date | null = new Date(
            createdAt.getTime() + (LATENCIES_MS[Math.floor(rand() * LATENCIES_MS.length)] ?? 1),
          );
          if (r < 0.12) [status, updatedAt] = ["in_progress", null];
          else if (r < 0.2) updatedAt = null; // the reference writer's UPDATE, without updated_at
          const row = { key: keyOf(), tenant, tool, status, createdAt, updatedAt };
          rows.push(row);
          if (tool !== null && RECORDING_TOOLS.includes(tool)) {
            const repeats = Math.floor(rand() * 3);
            for (let k = 0; k < repeats; k++) {
              const kind =
                status === "completed" ? "replay_served" : rand() < 0.5 ? "in_flight_rejected" : "outcome_unknown";
              events.push({ key: row.key, tenant, tool, kind, at: new Date(createdAt.getTime() + 2_000 + k * 7 * M) });
            }
          }
        }
      }
    }
  }
  return { rows, events };
}

async function insertRows(rows: Row[], table = "idempotency"): Promise<void> {
  if (rows.length === 0) return;
  await db.$executeRawUnsafe(
    `INSERT INTO ${table} (key, tenant, tool, status, created_at, updated_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])`,
    rows.map((r) => r.key),
    rows.map((r) => r.tenant),
    rows.map((r) => r.tool),
    rows.map((r) => r.status),
    rows.map((r) => r.createdAt.toISOString()),
    rows.map((r) => r.updatedAt?.toISOString() ?? null),
  );
}

async function insertEvents(
  events: { key: string; tenant: string; tool: string | null; kind: string; at: Date }[],
): Promise<void> {
  if (events.length === 0) return;
  await db.$executeRawUnsafe(
    `INSERT INTO idempotency_event (key, tenant, tool, kind, at) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`,
    events.map((e) => e.key),
    events.map((e) => e.tenant),
    events.map((e) => e.tool),
    events.map((e) => e.kind),
    events.map((e) => e.at.toISOString()),
  );
}

async function audit(row: Row, action: string, when: Date, actorLabel: string, reason: string): Promise<void> {
  const before = {
    key: row.key,
    tenant: row.tenant,
    subject: null,
    tool: row.tool,
    status: row.status,
    response: null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: null,
    version: null,
  };
  await db.$executeRawUnsafe(
    `INSERT INTO audit_log (at, actor, actor_role, action, key, tenant, before, reason) VALUES ($1::timestamptz, $2, 'operator', $3, $4, $5, $6::jsonb, $7)`,
    when.toISOString(),
    actorLabel,
    action,
    row.key,
    row.tenant,
    JSON.stringify(before),
    reason,
  );
}

/** A claim leaves the table (release, trim): the test keeps it, the figures must too. */
async function removeRow(row: Row): Promise<void> {
  await insertRows([row], GONE);
  await db.$executeRawUnsafe(`DELETE FROM idempotency WHERE key = $1`, row.key);
}

// ---------------------------------------------------------------------------------------------
// Plain SQL over the base tables: what every figure must equal.

const CLAIMS = `(SELECT key, tenant, tool, status, created_at, updated_at FROM idempotency WHERE tenant = ANY($1::text[])
                 UNION ALL SELECT key, tenant, tool, status, created_at, updated_at FROM ${GONE} WHERE tenant = ANY($1::text[]))`;

type Expected = {
  executions: number;
  completed: number;
  replays: number;
  rejections: number;
  unknown: number;
  byOperator: number;
  byReconciler: number;
  stuck: number;
  p50: number | null;
  p95: number | null;
};

async function expectedFor(
  tenants: string[],
  tool: string | null | undefined,
  from: string,
  to: string,
  now: Date,
): Promise<Expected> {
  // tool: undefined = every tool; null = rows without a tool.
  const toolMatch = (column: string) =>
    tool === undefined ? "true" : tool === null ? `${column} IS NULL` : `${column} = $4`;
  const params: unknown[] = [tenants, from, to, ...(typeof tool === "string" ? [tool] : [])];
  const one = async (sql: string, extra: unknown[] = []) => {
    const [row] = await db.$queryRawUnsafe<{ n: number | null }[]>(sql, ...params, ...extra);
    return row?.n ?? null;
  };
  const executions = await one(
    `SELECT count(*)::int AS n FROM ${CLAIMS} c WHERE created_at >= $2::timestamptz AND created_at < $3::timestamptz AND ${toolMatch("c.tool")}`,
  );
  const completed = await one(
    `SELECT count(*)::int AS n FROM ${CLAIMS} c WHERE status = 'completed' AND ${toolMatch("c.tool")}
       AND ((updated_at >= $2::timestamptz AND updated_at < $3::timestamptz) OR (updated_at IS NULL AND created_at >= $2::timestamptz AND created_at < $3::timestamptz))`,
  );
  const event = (kind: string) =>
    one(
      `SELECT count(*)::int AS n FROM idempotency_event e WHERE tenant = ANY($1::text[]) AND at >= $2::timestamptz AND at < $3::timestamptz AND kind = '${kind}' AND ${toolMatch("e.tool")}`,
    );
  const resolved = (reconciler: boolean) =>
    one(`SELECT count(*)::int AS n FROM audit_log a WHERE tenant = ANY($1::text[]) AND at >= $2::timestamptz AND at < $3::timestamptz
           AND action IN ('record.complete', 'record.release', 'record.force_release') AND ${toolMatch("(a.before->>'tool')")}
           AND ${reconciler ? "" : "NOT"} (actor = 'system:reconciler' OR reason LIKE 'reconciler: %')`);
  const stuck = await db.$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM idempotency i WHERE tenant = ANY($1::text[]) AND status = 'in_progress' AND ${toolMatch("i.tool").replace("$4", "$3")}
       AND created_at < $2::timestamptz - CASE tool WHEN 'charge_card' THEN interval '5 minutes' WHEN 'create_shipment' THEN interval '1 hour' ELSE interval '10 minutes' END`,
    tenants,
    now.toISOString(),
    ...(typeof tool === "string" ? [tool] : []),
  );
  const percentile = (p: number) =>
    one(`SELECT percentile_disc(${p}) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at) * 1000)::float8 AS n
           FROM ${CLAIMS} c WHERE status = 'completed' AND updated_at >= $2::timestamptz AND updated_at < $3::timestamptz AND ${toolMatch("c.tool")}`);
  const p50 = await percentile(0.5);
  const p95 = await percentile(0.95);
  return {
    executions: executions ?? 0,
    completed: completed ?? 0,
    replays: (await event("replay_served")) ?? 0,
    rejections: (await event("in_flight_rejected")) ?? 0,
    unknown: (await event("outcome_unknown")) ?? 0,
    byOperator: (await resolved(false)) ?? 0,
    byReconciler: (await resolved(true)) ?? 0,
    stuck: stuck[0]?.n ?? 0,
    p50: p50 === null ? null : bucketValueMs(latencyBucket(p50)),
    p95: p95 === null ? null : bucketValueMs(latencyBucket(p95)),
  };
}

function assertFigures(
  label: string,
  actual: MetricsFigures | undefined,
  expected: Expected,
  recordsEvents: boolean,
): void {
  expect(actual, label).toBeDefined();
  const a = actual!;
  const figures = {
    executions: a.executions,
    completed: a.completed,
    replaysServed: a.replaysServed,
    inFlightRejected: a.inFlightRejected,
    outcomeUnknown: a.outcomeUnknown,
    resolvedByOperator: a.resolvedByOperator,
    resolvedByReconciler: a.resolvedByReconciler,
    stuckNow: a.stuckNow,
    completeP50Ms: a.completeP50Ms,
    completeP95Ms: a.completeP95Ms,
    suppressionRate: a.suppressionRate,
  };
  const suppressed = expected.replays + expected.rejections;
  expect(figures, label).toEqual({
    executions: expected.executions,
    completed: expected.completed,
    replaysServed: recordsEvents ? expected.replays : null,
    inFlightRejected: recordsEvents ? expected.rejections : null,
    outcomeUnknown: recordsEvents ? expected.unknown : null,
    resolvedByOperator: expected.byOperator,
    resolvedByReconciler: expected.byReconciler,
    stuckNow: expected.stuck,
    completeP50Ms: expected.p50,
    completeP95Ms: expected.p95,
    suppressionRate:
      recordsEvents && expected.executions + suppressed > 0 ? suppressed / (expected.executions + suppressed) : null,
  });
}

async function metrics(
  window: MetricsWindow,
  now: Date,
  filter: Partial<MetricsQuery> = {},
  who = ME,
): Promise<MetricsReport> {
  return getMetrics(db, config, who, { window, tool: null, tenant: null, ...filter }, now);
}

async function rollupSnapshot(): Promise<unknown[]> {
  return db.$queryRawUnsafe(
    `SELECT h.* FROM metrics_hourly h WHERE tenant = ANY($1::text[]) ORDER BY hour, tenant, tool`,
    [TA, TB],
  );
}

// ---------------------------------------------------------------------------------------------

const NOW1 = at(4 * H + 10 * M); // hours 0–3 are closed (4:05 has passed)
const NOW2 = at(9 * H + 30 * M); // after a gap: hours 4–8 closed, 9 is live
let firstRollup: Awaited<ReturnType<typeof rollUpClosedHours>>;
let catchUp: Awaited<ReturnType<typeof rollUpClosedHours>>;
let reRun: Awaited<ReturnType<typeof rollUpClosedHours>>;
let snapshotAfterCatchUp: unknown[];
let snapshotAfterReRun: unknown[];

beforeAll(async () => {
  await db.$executeRawUnsafe(
    `CREATE TABLE ${GONE} (key text, tenant text, tool text, status text, created_at timestamptz, updated_at timestamptz)`,
  );

  // Hours 0–3, before the first roll-up.
  const early = generate(0, 4);
  await insertRows(early.rows);
  await insertEvents(early.events);
  const pending = early.rows.filter((r) => r.status === "in_progress");
  // An operator released a claim of hour 1 before hour 1 was rolled up: counted from the audit snapshot.
  const releasedEarly = pending.find((r) => r.createdAt < at(2 * H))!;
  await removeRow(releasedEarly);
  await audit(releasedEarly, "record.release", at(2 * H + 30 * M), `ops-${run}@test`, "processor: not found");
  // The reconciler completed one claim of hour 2 within hour 3.
  const reconciled = pending.find((r) => r.createdAt >= at(2 * H) && r.createdAt < at(3 * H))!;
  await db.$executeRawUnsafe(
    `UPDATE idempotency SET status = 'completed', updated_at = $2::timestamptz WHERE key = $1`,
    reconciled.key,
    at(3 * H + 15 * M).toISOString(),
  );
  await audit(
    reconciled,
    "record.complete",
    at(3 * H + 15 * M),
    "system:reconciler",
    "reconciler: processor says succeeded",
  );

  firstRollup = await rollUpClosedHours(db, NOW1);

  // After hours 0–3 were rolled up: a late completion (claimed at hour 1, completed at hour 5),
  // an operator's release and a trim of rows already counted.
  const stillPending = pending.filter((r) => r !== releasedEarly && r !== reconciled);
  const late = stillPending.find((r) => r.createdAt < at(2 * H) && r.tool === "charge_card") ?? stillPending[0]!;
  await db.$executeRawUnsafe(
    `UPDATE idempotency SET status = 'completed', updated_at = $2::timestamptz WHERE key = $1`,
    late.key,
    at(5 * H + 20 * M).toISOString(),
  );
  const releasedLate = stillPending.find((r) => r !== late)!;
  await removeRow(releasedLate);
  await audit(releasedLate, "record.force_release", at(4 * H + 30 * M), `admin-${run}@test`, "confirmed by phone");
  for (const trimmed of early.rows.filter((r) => r.status === "completed" && r.createdAt < at(H)).slice(0, 3))
    await removeRow(trimmed);

  // Hours 4–9, written during a gap in the roll-ups (hour 9 is the live one at NOW2).
  const later = generate(4, 10);
  const laterRows = later.rows
    .filter((r) => r.createdAt < NOW2)
    .map((r) => (r.updatedAt && r.updatedAt >= NOW2 ? { ...r, status: "in_progress", updatedAt: null } : r));
  await insertRows(laterRows);
  await insertEvents(later.events.filter((e) => e.at < NOW2));

  catchUp = await rollUpClosedHours(db, NOW2);
  snapshotAfterCatchUp = await rollupSnapshot();
  reRun = await rollUpClosedHours(db, NOW2);
  snapshotAfterReRun = await rollupSnapshot();
});

afterAll(async () => {
  await db.$executeRawUnsafe(`DROP TABLE IF EXISTS ${GONE}`);
});

describe("hourly roll-up", () => {
  it("rolls up exactly the closed hours, each once", () => {
    expect(firstRollup.rolledUp).toContain(at(3 * H).toISOString());
    expect(firstRollup.rolledUp).not.toContain(at(4 * H).toISOString());
    expect(firstRollup.closedThrough).toBe(at(3 * H).toISOString());
    // An hour is closed only 5 minutes after it ends: rows stamped before commit may still arrive.
    expect(lastClosedHour(at(10 * H + 4 * M))).toEqual(at(8 * H));
    expect(lastClosedHour(at(10 * H + 5 * M))).toEqual(at(9 * H));
  });

  it("catches up after a gap: hours 4–8, none twice, the live hour not at all", () => {
    expect(catchUp.rolledUp).toEqual([4, 5, 6, 7, 8].map((h) => at(h * H).toISOString()));
  });

  it("re-running changes nothing", () => {
    expect(reRun.rolledUp).toEqual([]);
    expect(snapshotAfterReRun).toEqual(snapshotAfterCatchUp);
    expect(snapshotAfterCatchUp.length).toBeGreaterThan(20);
  });

  it("two roll-ups at once do each hour once", async () => {
    const later = at(11 * H + 6 * M);
    const [a, b] = await Promise.all([rollUpClosedHours(db, later), rollUpClosedHours(db, later)]);
    expect([...a.rolledUp, ...b.rolledUp].sort()).toEqual([9, 10].map((h) => at(h * H).toISOString()));
    // Each found the other's hours done under the lock — or, when one finished an hour before the other
    // listed its pending hours, never saw it pending: at most one skip per hour.
    expect(a.skipped + b.skipped).toBeLessThanOrEqual(2);
    await db.$executeRawUnsafe(
      `DELETE FROM metrics_rollup_hour WHERE hour >= $1::timestamptz`,
      at(9 * H).toISOString(),
    );
    await db.$executeRawUnsafe(`DELETE FROM metrics_hourly WHERE hour >= $1::timestamptz`, at(9 * H).toISOString());
  });
});

const STEPS: Record<MetricsWindow, number> = { "1h": 12, "24h": 24, "48h": 48 };

describe("every figure equals plain SQL over the base tables", () => {
  for (const window of ["48h", "24h", "1h"] as const) {
    it(`${window}: per tool, overall, and the series`, async () => {
      const report = await metrics(window, NOW2);
      expect(report.to).toBe(NOW2.toISOString());
      // The open steps come from minute slices up to the newest settled minute (9:28 at 9:30), the rest live.
      expect(report.source.countedLiveFrom).toBe(at(9 * H + 29 * M).toISOString());
      if (window !== "1h") {
        expect(report.source.rolledUpSteps).toBeGreaterThanOrEqual(9);
        expect(report.source).toMatchObject({ liveSteps: 1, sliceMinutes: 29 });
      } else {
        expect(report.source).toMatchObject({ rolledUpSteps: 0, liveSteps: 12, sliceMinutes: 54 });
      }
      for (const tool of TOOLS) {
        const expected = await expectedFor([TA, TB], tool, report.from, report.to, NOW2);
        const row = report.tools.find((t) => t.tool === tool);
        if (expected.executions === 0 && expected.completed === 0 && expected.stuck === 0 && row === undefined)
          continue;
        assertFigures(
          `${window} ${tool ?? "(unrecorded)"}`,
          row,
          expected,
          tool !== null && RECORDING_TOOLS.includes(tool),
        );
      }
      // Overall: events come from the recording tools; the suppression rate's base is their executions.
      const all = await expectedFor([TA, TB], undefined, report.from, report.to, NOW2);
      const recordingExecutions = report.tools.filter((t) => t.eventsRecorded).reduce((n, t) => n + t.executions, 0);
      expect(report.overall).toMatchObject({
        executions: all.executions,
        completed: all.completed,
        replaysServed: all.replays,
        inFlightRejected: all.rejections,
        outcomeUnknown: all.unknown,
        stuckNow: all.stuck,
        resolvedByOperator: all.byOperator,
        resolvedByReconciler: all.byReconciler,
        completeP50Ms: all.p50,
        completeP95Ms: all.p95,
        suppressionRate: (all.replays + all.rejections) / (recordingExecutions + all.replays + all.rejections),
      });
      // The series, step by step.
      const stepSql = `date_bin('${report.stepMs / 1000} seconds', %, '2000-01-01T00:00:00Z')`;
      const perStep = await db.$queryRawUnsafe<
        { step: Date; executions: number; replays: number; rejections: number }[]
      >(
        `SELECT s.step, (SELECT count(*)::int FROM ${CLAIMS} c WHERE ${stepSql.replace("%", "c.created_at")} = s.step) AS executions,
                (SELECT count(*)::int FROM idempotency_event e WHERE tenant = ANY($1::text[]) AND kind = 'replay_served' AND ${stepSql.replace("%", "e.at")} = s.step) AS replays,
                (SELECT count(*)::int FROM idempotency_event e WHERE tenant = ANY($1::text[]) AND kind = 'in_flight_rejected' AND ${stepSql.replace("%", "e.at")} = s.step) AS rejections
         FROM generate_series($2::timestamptz, $2::timestamptz + interval '${report.stepMs / 1000} seconds' * ($3::int - 1), interval '${report.stepMs / 1000} seconds') AS s(step) ORDER BY 1`,
        [TA, TB],
        report.from,
        STEPS[window],
      );
      expect(report.series.map((p) => [p.at, p.executions, p.replaysServed, p.inFlightRejected])).toEqual(
        perStep.map((s) => [s.step.toISOString(), s.executions, s.replays, s.rejections]),
      );
      expect(report.series.reduce((n, p) => n + p.executions, 0)).toBe(all.executions);
    });
  }

  it("per tenant, and a tenant-limited actor sees only its tenant", async () => {
    const both = await metrics("48h", NOW2);
    for (const tenant of [TA, TB]) {
      const expected = await expectedFor([tenant], undefined, both.from, both.to, NOW2);
      expect(both.tenants.find((t) => t.tenant === tenant)).toMatchObject({
        executions: expected.executions,
        completed: expected.completed,
        replaysServed: expected.replays,
        stuckNow: expected.stuck,
      });
    }
    const onlyA = await metrics("48h", NOW2, {}, actor([TA]));
    const expectedA = await expectedFor([TA], undefined, onlyA.from, onlyA.to, NOW2);
    expect(onlyA.tenants.map((t) => t.tenant)).toEqual([TA]);
    expect(onlyA.overall).toMatchObject({
      executions: expectedA.executions,
      completed: expectedA.completed,
      replaysServed: expectedA.replays,
      stuckNow: expectedA.stuck,
    });
    // Asking for the other tenant gives nothing, not its figures: the known tools, each never seen
    // (the configuration's two, and any listed by another file's stored tool listings in this database).
    const sneaky = await metrics("48h", NOW2, { tenant: TB }, actor([TA]));
    expect(sneaky.overall.executions).toBe(0);
    const shown = sneaky.tools.map((t) => [t.tool, t.seen, t.executions]);
    expect(shown.filter(([, seen, executions]) => seen !== false || executions !== 0)).toEqual([]);
    expect(shown).toEqual(
      expect.arrayContaining([
        ["charge_card", false, 0],
        ["create_shipment", false, 0],
      ]),
    );
  });

  it("tool and tenant filters, including rows without a tool", async () => {
    const charge = await metrics("24h", NOW2, { tool: "charge_card", tenant: TB });
    expect(charge.tools.map((t) => t.tool)).toEqual(["charge_card"]);
    assertFigures(
      "charge_card in B",
      charge.tools[0],
      await expectedFor([TB], "charge_card", charge.from, charge.to, NOW2),
      true,
    );
    const unrecorded = await metrics("24h", NOW2, { tool: UNRECORDED_TOOL });
    expect(unrecorded.tools.map((t) => t.tool)).toEqual([null]);
    assertFigures(
      "unrecorded tool",
      unrecorded.tools[0],
      await expectedFor([TA, TB], null, unrecorded.from, unrecorded.to, NOW2),
      false,
    );
  });

  it("a tool whose writer records no events reads null (not recorded), never 0", async () => {
    const report = await metrics("48h", NOW2);
    const silent = report.tools.find((t) => t.tool === "silent_tool")!;
    expect(silent.executions).toBeGreaterThan(0);
    expect(silent).toMatchObject({
      eventsRecorded: false,
      replaysServed: null,
      inFlightRejected: null,
      outcomeUnknown: null,
      suppressionRate: null,
    });
    const charge = report.tools.find((t) => t.tool === "charge_card")!;
    expect(charge.eventsRecorded).toBe(true);
    expect(charge.replaysServed).toBeGreaterThan(0);
    const onlySilent = await metrics("48h", NOW2, { tool: "silent_tool" });
    expect(onlySilent.series.every((p) => p.replaysServed === null && p.suppressionRate === null)).toBe(true);
  });

  it("the risk table puts stuck and unknown first", async () => {
    const report = await metrics("48h", NOW2);
    const risks = report.tools.map((t) => t.stuckNow + (t.outcomeUnknown ?? 0));
    expect(risks).toEqual([...risks].sort((a, b) => b - a));
    expect(risks[0]).toBeGreaterThan(0);
  });

  it("figures survive deletes after roll-up and count late completions in their completion hour", async () => {
    const report = await metrics("48h", NOW2);
    const hour1 = report.series.find((p) => p.at === at(H).toISOString())!;
    const [gone] = await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${GONE}`);
    expect(gone!.n).toBe(5);
    const [hour1Claims] = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${CLAIMS} c WHERE created_at >= $2::timestamptz AND created_at < $3::timestamptz`,
      [TA, TB],
      at(H).toISOString(),
      at(2 * H).toISOString(),
    );
    expect(hour1.executions).toBe(hour1Claims!.n);
    const [lateCompletions] = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM idempotency WHERE tenant = ANY($1::text[]) AND updated_at >= $2::timestamptz AND created_at < $3::timestamptz`,
      [TA, TB],
      at(5 * H).toISOString(),
      at(2 * H).toISOString(),
    );
    expect(lateCompletions!.n).toBe(1);
  });
});

describe("minute slices of the open hours", () => {
  const minutesRolled = async (from: Date, to: Date) =>
    (
      await db.$queryRawUnsafe<{ minute: Date }[]>(
        `SELECT minute FROM metrics_rollup_minute WHERE minute >= $1::timestamptz AND minute < $2::timestamptz ORDER BY minute`,
        from.toISOString(),
        to.toISOString(),
      )
    ).map((r) => r.minute.toISOString());

  it("settle 10 s: at 9:30 the newest rolled minute is 9:28, from the start of the newest closed hour (8:00)", async () => {
    expect(lastClosedMinute(at(9 * H + 30 * M + 9_999))).toEqual(at(9 * H + 28 * M));
    expect(lastClosedMinute(at(9 * H + 30 * M + 10_000))).toEqual(at(9 * H + 29 * M));
    // The metrics reads above rolled them up (each once: the primary key would have refused a second).
    const rolled = await minutesRolled(at(7 * H), at(10 * H));
    expect(rolled[0]).toBe(at(8 * H).toISOString());
    expect(rolled.at(-1)).toBe(at(9 * H + 28 * M).toISOString());
    expect(rolled).toHaveLength(89);
  });

  it("two roll-ups at once roll each minute once; slices of rolled-up hours are pruned, others kept", async () => {
    const later = at(11 * H + 40 * M); // minutes 10:00–11:38 pending; hour 9's rollup was deleted above
    await rollUpClosedHours(db, later);
    await db.$executeRawUnsafe(
      `DELETE FROM metrics_rollup_hour WHERE hour >= $1::timestamptz`,
      at(9 * H).toISOString(),
    );
    const [a, b] = await Promise.all([rollUpClosedMinutes(db, later), rollUpClosedMinutes(db, later)]);
    expect(a.rolledUp + b.rolledUp).toBe(99);
    expect(await minutesRolled(at(10 * H), at(12 * H))).toHaveLength(99);
    // Hour 8 is rolled up and before 10:00: its slices are gone. Hour 9 is not rolled up: kept.
    expect(await minutesRolled(at(8 * H), at(9 * H))).toEqual([]);
    expect(await minutesRolled(at(9 * H), at(10 * H))).toHaveLength(29);
    const [slices] = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM metrics_minute WHERE minute >= $1::timestamptz AND minute < $2::timestamptz`,
      at(8 * H).toISOString(),
      at(9 * H).toISOString(),
    );
    expect(slices!.n).toBe(0);
    await db.$executeRawUnsafe(
      `DELETE FROM metrics_rollup_hour WHERE hour >= $1::timestamptz`,
      at(9 * H).toISOString(),
    );
    await db.$executeRawUnsafe(`DELETE FROM metrics_hourly WHERE hour >= $1::timestamptz`, at(9 * H).toISOString());
  });

  it("a row stamped in a minute already rolled up is missing from the open hour until that hour is rolled up, then counted", async () => {
    const lateRow: Row = {
      key: keyOf(),
      tenant: TA,
      tool: "charge_card",
      status: "completed",
      createdAt: at(9 * H + 10 * M),
      updatedAt: at(9 * H + 10 * M + 500),
    };
    const hour9 = async (now: Date) =>
      (await metrics("48h", now)).series.find((p) => p.at === at(9 * H).toISOString())!.executions;
    const before = await hour9(NOW2);
    await insertRows([lateRow]);
    // Provisional: the 9:10 slice was rolled before the row committed (a writer 20 minutes behind).
    expect(await hour9(NOW2)).toBe(before);
    // Once hour 9 closes, a read still takes it from its slices (they cover its 60 minutes):
    // counting an hour from the base tables is the background roller's work, not a request's.
    const closed = at(10 * H + 6 * M);
    expect(await hour9(closed)).toBe(before);
    // The roller's round (rollUpSettled, as `idem rollup`): the hour's figures are exact, the row counted.
    await rollUpSettled(db, closed);
    const [expected] = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM ${CLAIMS} c WHERE created_at >= $2::timestamptz AND created_at < $3::timestamptz`,
      [TA, TB],
      at(9 * H).toISOString(),
      at(10 * H).toISOString(),
    );
    expect(await hour9(closed)).toBe(expected!.n);
    expect(expected!.n).toBe(before + 1);
  });
});

describe("GET /api/v1/metrics query", () => {
  it("accepts window, tool and tenant; refuses unknown parameters and bad windows", () => {
    expect(
      parseMetricsQuery(new URLSearchParams("window=1h&tool=charge_card&tenant=acme"), { unknownParams: "reject" }),
    ).toEqual({ ok: true, value: { window: "1h", tool: "charge_card", tenant: "acme" } });
    expect(parseMetricsQuery(new URLSearchParams(""), { unknownParams: "reject" })).toEqual({
      ok: true,
      value: { window: "24h", tool: null, tenant: null },
    });
    const unknown = parseMetricsQuery(new URLSearchParams("window=24h&tenat=acme"), { unknownParams: "reject" });
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.problems[0]?.message).toMatch(/unknown parameter "tenat"/);
    expect(parseMetricsQuery(new URLSearchParams("tenat=acme"), { unknownParams: "ignore" }).ok).toBe(true);
    const bad = parseMetricsQuery(new URLSearchParams("window=7d"), { unknownParams: "reject" });
    expect(!bad.ok && bad.problems[0]?.message).toMatch(/expected 1h, 24h or 48h/);
    expect(parseMetricsQuery(new URLSearchParams("tool=a&tool=b"), { unknownParams: "reject" }).ok).toBe(false);
  });
});
