import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkPlan, type ExplainOutput } from "@/tools/bench/plan-check";
import type { LoadReport } from "@/tools/bench/load-bench-data";
import { runCli } from "../helpers/run-cli";

type BenchJson = {
  rows: number;
  database: string;
  load: LoadReport;
  results: {
    name: string;
    sqlP50Ms: number;
    sqlP95Ms: number;
    apiP50Ms: number;
    apiP95Ms: number;
    ratio: number;
    plan: string;
    planProblems: string[];
    floors: {
      caseP50Ms: number | null;
      trivialP50Ms: number;
      bareP50Ms: number;
      caseOverTrivial: number;
      trivialOverBare: number;
    };
  }[];
  guard: { roundTrips: { guard: { fresh: number }; referenceText: { fresh: number } }; textClaimMedianMs: number };
  page: {
    javascriptKb: { gzip: number };
    scriptFiles: { src: string; gzipKb: number }[];
    noModuleKb: { scripts: number; gzip: number };
    ttfbMs: { p50Ms: number };
  };
  planProblems: string[];
};

const CASES = [
  "ref lookup",
  "searchable field (receipt)",
  "list, first page",
  "list, 10,000 rows deep (keyset)",
  "filtered list (acme + charge_card + completed)",
  "filtered list (acme + charge_card + in_progress)",
  "stuck list",
  "metrics, 48 h",
  "prometheus scrape",
  "record detail",
  "resolve (compare-and-set + audit)",
  "duplicates, 24 h",
  "repeat delays, 48 h",
  "tools audit, 24 h",
];

describe("idem bench at 20,000 rows", () => {
  let result: Awaited<ReturnType<typeof runCli>>;
  let report: BenchJson;
  beforeAll(async () => {
    // The bench creates (and drops) its own database on the server the test database lives on.
    result = await runCli(["bench", "--rows", "20000", "--iterations", "5", "--json"], {
      DATABASE_URL: inject("databaseUrl"),
    });
    if (!result.stdout) throw new Error(`no report: ${result.stderr.slice(-3000)}`);
    report = JSON.parse(result.stdout) as BenchJson;
  }, 900_000);

  it("prints the JSON shape, every case measured on both sides with its plan", () => {
    expect(result.code, result.stderr).toBe(0);
    expect(report.rows).toBe(20_000);
    expect(report.results.map((r) => r.name)).toEqual(CASES);
    for (const r of report.results) {
      expect(r.sqlP50Ms, r.name).toBeGreaterThan(0);
      expect(r.sqlP95Ms, r.name).toBeGreaterThanOrEqual(r.sqlP50Ms);
      expect(r.apiP50Ms, r.name).toBeGreaterThan(0);
      expect(r.apiP95Ms, r.name).toBeGreaterThanOrEqual(r.apiP50Ms);
      expect(r.ratio, r.name).toBeGreaterThan(0);
      expect(r.plan, r.name).toMatch(/Scan/);
    }
    expect(report.results.find((r) => r.name === "ref lookup")?.plan).toMatch(
      /Index Scan using idempotency_pkey on idempotency/,
    );
    expect(report.planProblems).toEqual([]);
  });

  it("loads duplicates that got through (~0.2 % of claims) and scans them as the console would", () => {
    expect(report.load.duplicates).toBeGreaterThan(20);
    expect(report.load.duplicates).toBeLessThan(80);
    expect(report.load.seconds.scan).toBeGreaterThan(0);
  });

  it("prints both floors beside every API case: the trivial route and the bare handler, and the ratios between", () => {
    for (const r of report.results) {
      const f = r.floors;
      expect(f.trivialP50Ms, r.name).toBeGreaterThan(0);
      expect(f.bareP50Ms, r.name).toBeGreaterThan(0);
      // Interleaved with the floors, except resolve: each run of it needs a stuck claim of its own.
      if (r.name.startsWith("resolve")) expect(f.caseP50Ms).toBeNull();
      else expect(f.caseP50Ms, r.name).toBeGreaterThan(0);
      expect(f.caseOverTrivial, r.name).toBeCloseTo((f.caseP50Ms ?? r.apiP50Ms) / f.trivialP50Ms, 0);
      expect(f.trivialOverBare, r.name).toBeCloseTo(f.trivialP50Ms / f.bareP50Ms, 0);
    }
  });

  it("reports the guard's round trips beside the reference writer's, and the records page's weight", () => {
    expect(report.guard.roundTrips.guard.fresh).toBeLessThanOrEqual(report.guard.roundTrips.referenceText.fresh);
    expect(report.guard.textClaimMedianMs).toBeGreaterThan(0);
    expect(report.page.javascriptKb.gzip).toBeGreaterThan(10);
    // Each script counted once, and the sum is the whole; the nomodule polyfills are apart from it.
    const files = report.page.scriptFiles;
    expect(new Set(files.map((f) => f.src)).size).toBe(files.length);
    expect(files.reduce((sum, f) => sum + f.gzipKb, 0)).toBeCloseTo(report.page.javascriptKb.gzip, 0);
    expect(report.page.noModuleKb.scripts).toBeGreaterThanOrEqual(0);
    expect(report.page.ttfbMs.p50Ms).toBeGreaterThan(0);
  });

  it("drops its database afterwards", async () => {
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [report.database]);
      expect(report.database).toMatch(/^idem_bench_/);
      expect(rows).toHaveLength(0);
    } finally {
      await client.end();
    }
  });
});

describe("the plan check", () => {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  const tenant = `plan-check-${Math.random().toString(16).slice(2, 8)}`;
  const big = new Map([["idempotency", 100_000]]);
  const explain = async (sql: string, values: unknown[] = []) => {
    const { rows } = await client.query<{ "QUERY PLAN": ExplainOutput[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
      values,
    );
    return rows[0]!["QUERY PLAN"][0]!.Plan;
  };
  beforeAll(async () => {
    await client.connect();
    await client.query(
      `INSERT INTO idempotency (key, tenant, status, created_at)
       SELECT $1 || lpad(i::text, 12, '0'), $1, 'completed', now() - i * interval '1 second' FROM generate_series(1, 1500) AS i`,
      [tenant],
    );
  });
  afterAll(async () => {
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [tenant]);
    await client.end();
  });

  it("fails a sequential scan of a big table", async () => {
    await client.query("SET enable_indexscan = off; SET enable_bitmapscan = off");
    try {
      const plan = await explain("SELECT count(*) FROM idempotency WHERE tenant = $1", [tenant]);
      expect(checkPlan(plan, big)).toEqual([expect.stringMatching(/^sequential scan of idempotency/)]);
      expect(checkPlan(plan, new Map())).toEqual([]);
    } finally {
      await client.query("RESET enable_indexscan; RESET enable_bitmapscan");
    }
  });

  it("fails a sort of many rows of a big table, passes a sort of a few", async () => {
    const sorted = await explain("SELECT key FROM idempotency WHERE tenant = $1 ORDER BY md5(key)", [tenant]);
    expect(checkPlan(sorted, big)).toContainEqual(expect.stringMatching(/^sort of 1,500 rows from idempotency/));
    // 20 keys of a primary-key range, sorted: a handful of rows is not "a sort over the table".
    const few = await explain("SELECT key FROM idempotency WHERE key >= $1 AND key < $2 ORDER BY md5(key)", [
      `${tenant}000000000001`,
      `${tenant}000000000021`,
    ]);
    expect(JSON.stringify(few)).toMatch(/"Sort"/);
    expect(checkPlan(few, big)).toEqual([]);
    // The same 1,500-row sort of a table of 10 M rows is 0.015 % of it: traffic-sized, not table-sized.
    expect(checkPlan(sorted, new Map([["idempotency", 10_000_000]]))).toEqual([]);
    expect(checkPlan(sorted, new Map([["idempotency", 1_000_000]]))).toContainEqual(
      expect.stringMatching(/^sort of 1,500 rows/),
    );
  });
});
