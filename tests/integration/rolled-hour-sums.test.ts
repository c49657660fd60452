import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { windowFigures } from "@/lib/metrics/window-figures";
import type { SourceFigures, SourceScope } from "@/lib/metrics/source-counts";
import { connectTestDb } from "../helpers/db";

/**
 * The rolled-up hours of a window, summed in SQL (lib/metrics/rolled-hour-sums.ts): per (hour, tool)
 * and per (tenant, tool), histograms merged, equal to the rows added up here one by one; scoped by
 * tenant and tool; an hour rolled again is read again, not served from the kept sums. Rollup rows
 * written here directly, in hours of 1990 no other file reads (the files share the database).
 */
const db = connectTestDb();
const run = randomBytes(3).toString("hex");
const H = 3_600_000;
const START = Date.UTC(1990, 0, 1) + Math.floor(Math.random() * 3_000) * 24 * H;
const HOURS = [0, 1, 2, 3].map((i) => new Date(START + i * H));
const TENANTS = Array.from({ length: 30 }, (_, i) => `rhs-${run}-${i}`);
const TOOLS = [`charge_${run}`, `ship_${run}`, ""];
const FIGURES = [
  "executions",
  "completed",
  "replaysServed",
  "inFlightRejected",
  "outcomeUnknown",
  "resolvedByOperator",
  "resolvedByReconciler",
] as const;

type Row = SourceFigures & {
  hour: Date;
  tenant: string;
  tool: string;
  writer: Record<string, number>;
  operator: Record<string, number>;
};

/** A row's figures from its position, different enough that a sum over the wrong group shows. */
function rowOf(h: number, t: number, k: number, bump = 0): Row {
  const n = 1 + ((h * 7 + t * 3 + k * 5 + bump) % 11);
  return {
    hour: HOURS[h]!,
    tenant: TENANTS[t]!,
    tool: TOOLS[k]!,
    executions: n * 3,
    completed: n * 2,
    replaysServed: n,
    inFlightRejected: t % 2,
    outcomeUnknown: k,
    resolvedByOperator: h % 2,
    resolvedByReconciler: (t + h) % 3,
    writer: { [String(10 + (n % 4))]: n, "20": 1 },
    operator: t % 5 === 0 ? { "30": h + 1 } : {},
  };
}

async function writeHour(rows: Row[], hour: Date): Promise<void> {
  await db.$transaction([
    db.$executeRaw`DELETE FROM metrics_hourly WHERE hour = ${hour}::timestamptz`,
    db.$executeRaw`DELETE FROM metrics_rollup_hour WHERE hour = ${hour}::timestamptz`,
    db.metricsHourly.createMany({
      data: rows.map((r) => ({
        hour: r.hour,
        tenant: r.tenant,
        tool: r.tool,
        executions: r.executions,
        completed: r.completed,
        replaysServed: r.replaysServed,
        inFlightRejected: r.inFlightRejected,
        outcomeUnknown: r.outcomeUnknown,
        resolvedByOperator: r.resolvedByOperator,
        resolvedByReconciler: r.resolvedByReconciler,
        latency: r.writer,
        operatorLatency: r.operator,
      })),
    }),
    db.metricsRollupHour.create({ data: { hour, durationMs: 1 } }),
  ]);
}

function expected(rows: Row[], scope: SourceScope) {
  const inScope = rows.filter(
    (r) =>
      (scope.tenants === null || scope.tenants.includes(r.tenant)) &&
      (scope.tenant === null || r.tenant === scope.tenant) &&
      (scope.tool === null || r.tool === scope.tool),
  );
  const sum = (group: Row[]) => Object.fromEntries(FIGURES.map((f) => [f, group.reduce((s, r) => s + r[f], 0)]));
  const groups = (keyOf: (r: Row) => string) => {
    const map = new Map<string, Row[]>();
    for (const r of inScope) map.set(keyOf(r), [...(map.get(keyOf(r)) ?? []), r]);
    return map;
  };
  const merged = (group: Row[], kind: "writer" | "operator") => {
    const histogram: Record<string, number> = {};
    for (const r of group) for (const [b, n] of Object.entries(r[kind])) histogram[b] = (histogram[b] ?? 0) + n;
    return histogram;
  };
  return {
    byHour: [...groups((r) => `${r.hour.toISOString()}|${r.tool}`)]
      .map(([key, group]) => ({ key, ...sum(group) }))
      .sort(byKey),
    byTenant: [...groups((r) => `${r.tenant}|${r.tool}`)].map(([key, group]) => ({ key, ...sum(group) })).sort(byKey),
    latency: [...groups((r) => `${r.tenant}|${r.tool}`)]
      .map(([key, group]) => ({ key, writer: merged(group, "writer"), operator: merged(group, "operator") }))
      .sort(byKey),
  };
}

const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);

async function read(scope: SourceScope) {
  const figures = await windowFigures(
    db,
    { from: HOURS[0]!, to: new Date(START + HOURS.length * H), stepMs: H },
    scope,
  );
  const figuresOnly = (r: SourceFigures) => Object.fromEntries(FIGURES.map((f) => [f, r[f]]));
  const ours = (tenant: string) => TENANTS.includes(tenant);
  return {
    source: figures.source,
    counts: figures.counts.filter((r) => ours(r.tenant)),
    byHour: figures.rolled.byHour
      .filter((r) => TOOLS.includes(r.tool))
      .map((r) => ({ key: `${r.step.toISOString()}|${r.tool}`, ...figuresOnly(r) }))
      .sort(byKey),
    byTenant: figures.rolled.byTenant
      .filter((r) => ours(r.tenant))
      .map((r) => ({ key: `${r.tenant}|${r.tool}`, ...figuresOnly(r) }))
      .sort(byKey),
    latency: figures.latency
      .filter((l) => ours(l.tenant))
      .map((l) => ({
        key: `${l.tenant}|${l.tool}`,
        writer: Object.fromEntries([...l.histograms.writer].map(([b, n]) => [String(b), n])),
        operator: Object.fromEntries([...l.histograms.operator].map(([b, n]) => [String(b), n])),
      }))
      .sort(byKey),
  };
}

describe("rolled-up hours summed in SQL", () => {
  const rows = HOURS.flatMap((_, h) => TENANTS.flatMap((_, t) => TOOLS.map((_, k) => rowOf(h, t, k))));

  it("per (hour, tool), per (tenant, tool) and the merged histograms equal the rows added up one by one", async () => {
    for (const hour of HOURS)
      await writeHour(
        rows.filter((r) => r.hour === hour),
        hour,
      );
    const scope: SourceScope = { tenants: null, tenant: null, tool: null };
    const figures = await read(scope);
    expect(figures.source).toMatchObject({ rolledUpSteps: HOURS.length, sliceMinutes: 0 });
    expect(figures.counts).toEqual([]);
    // Only this file's tenants are in these hours, so its (hour, tool) sums are the whole hour's.
    const want = expected(rows, scope);
    expect(figures.byHour).toEqual(want.byHour);
    expect(figures.byTenant).toEqual(want.byTenant);
    expect(figures.byTenant).toHaveLength(TENANTS.length * TOOLS.length);
    expect(figures.latency).toEqual(want.latency);
  });

  it("under an actor's tenants, a tenant and a tool filter", async () => {
    for (const scope of [
      { tenants: TENANTS.slice(0, 7), tenant: null, tool: null },
      { tenants: null, tenant: TENANTS[4]!, tool: null },
      { tenants: TENANTS.slice(0, 7), tenant: TENANTS[4]!, tool: TOOLS[1]! },
      { tenants: null, tenant: null, tool: "" },
    ] satisfies SourceScope[]) {
      const figures = await read(scope);
      const want = expected(rows, scope);
      expect(figures.byHour, JSON.stringify(scope)).toEqual(want.byHour);
      expect(figures.byTenant, JSON.stringify(scope)).toEqual(want.byTenant);
      expect(figures.latency, JSON.stringify(scope)).toEqual(want.latency);
    }
  });

  it("an hour rolled again (a new listing version) is read again, not taken from the kept sums", async () => {
    const scope: SourceScope = { tenants: null, tenant: null, tool: null };
    await read(scope); // kept
    const again = rows.map((r) =>
      r.hour === HOURS[2] ? rowOf(2, TENANTS.indexOf(r.tenant), TOOLS.indexOf(r.tool), 4) : r,
    );
    await writeHour(
      again.filter((r) => r.hour === HOURS[2]),
      HOURS[2]!,
    );
    const figures = await read(scope);
    const want = expected(again, scope);
    expect(want.byTenant).not.toEqual(expected(rows, scope).byTenant);
    expect(figures.byHour).toEqual(want.byHour);
    expect(figures.byTenant).toEqual(want.byTenant);
    expect(figures.latency).toEqual(want.latency);
  });
});
