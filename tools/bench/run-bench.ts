import "server-only";
import os from "node:os";
import pg from "pg";
import type { Actor } from "@/lib/identity/actor";
import type { ProgressBar } from "@/lib/terminal/progress";
import { configSchema } from "@/lib/config/schema";
import { ensureSearchIndexes } from "@/lib/search/search-indexes";
import { migrate } from "@/lib/db/migrate";
import { measureApiSide } from "./api-side";
import { startBareLookupServer } from "./bare-lookup-server";
import { createBenchDatabase } from "./bench-database";
import { prepareCases } from "./bench-cases";
import { BENCH_SEARCH, startBenchServer } from "./bench-server";
import { waitForConsoleQuiet } from "./console-quiet";
import { createCapturingDb } from "./capturing-pool";
import { measureFloors, ratioOf, type Floors } from "./floors";
import { measureGuardLatency, type GuardLatencyReport } from "./guard-latency";
import { loadBenchData, type LoadReport } from "./load-bench-data";
import { measurePageWeight, type PageWeight } from "./page-weight";
import { summarise } from "./percentiles";
import { measureSqlSide, planText, type StatementPlan } from "./sql-side";
import { streamingReplicas } from "./streaming-replicas";

export type BenchResult = {
  name: string;
  sqlP50Ms: number;
  sqlP95Ms: number;
  apiP50Ms: number;
  apiP95Ms: number;
  /** apiP50 / sqlP50. */
  ratio: number;
  /** The plan shape of every statement the operation sends, with its EXPLAIN ANALYZE time. */
  plan: string;
  planProblems: string[];
  statements: number;
  responseBytes: number;
  targets: { sqlP95Ms: number | null; apiP95Ms: number | null };
  /** Targets this case misses, one sentence each. */
  missed: string[];
  /** The floors measured interleaved with this case (floors.ts): the console's trivial route and the bare lookup. */
  floors: Floors & { caseOverTrivial: number; trivialOverBare: number };
};

export type BenchReport = {
  rows: number;
  results: BenchResult[];
  iterations: number;
  machine: { cpus: number; cpuModel: string; postgres: string; date: string; replicas: string[] };
  load: LoadReport;
  guard: GuardLatencyReport;
  page: PageWeight;
  database: string;
  /** Plan problems across all cases: the run fails when there is any. */
  planProblems: string[];
};

export type BenchOptions = {
  rows: number;
  iterations: number;
  keep: boolean;
  progress: ProgressBar;
  log: (line: string) => void;
};

/** A table is "big" for the plan check from this many rows: a seq scan or sort of it grows with the data. */
const BIG_TABLE_ROWS = 100_000;
export const BENCH_ACTOR: Actor = {
  kind: "token",
  id: "bench",
  name: "bench",
  displayName: "token bench",
  role: "admin",
  tenants: [],
};

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const { rows, iterations, progress, log } = options;
  const warmup = Math.min(10, Math.ceil(iterations / 4));
  const database = await createBenchDatabase();
  log(`bench database ${database.name}`);
  try {
    await migrate(database.url);
    const load = await loadBenchData(database.url, rows, progress);
    await buildBenchSearchIndexes(database.url);
    log(
      `loaded ${rows.toLocaleString("en-US")} rows and ${load.events.toLocaleString("en-US")} events in ${Object.entries(
        load.seconds,
      )
        .map(([k, s]) => `${k} ${s.toFixed(1)} s`)
        .join(", ")}`,
    );

    log("starting the production server (building first if the build is stale)…");
    const server = await startBenchServer(database.url, log);
    const bare = await startBareLookupServer(database.url);
    // The SQL side replays the console's statements as the console's sessions run them: no parallel workers
    // unless its config allows them (database.parallelWorkers, lib/db/client.ts).
    const config = configSchema.parse(server.config);
    const client = new pg.Client({
      connectionString: database.url,
      options: `-c max_parallel_workers_per_gather=${config.database.parallelWorkers}`,
    });
    await client.connect();
    const capture = createCapturingDb(database.url);
    try {
      const freshNeeded = 2 * (warmup + iterations) + 4;
      const cases = await prepareCases(database.url, { actor: BENCH_ACTOR, config, rows, load, log }, freshNeeded);
      const { rows: bigRows } = await client.query<{ relname: string; rows: number }>(
        "SELECT relname, reltuples::float8 AS rows FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace AND reltuples >= $1",
        [BIG_TABLE_ROWS],
      );
      const big = new Map(bigRows.map((r) => [r.relname, r.rows]));

      // The server's first background round (a catch-up) is not what the first case's timings should hold.
      const quiet = await waitForConsoleQuiet(client);
      log(
        `the console's backends ${quiet.quiet ? "quiet" : "still busy, timing anyway,"} after ${(quiet.waitedMs / 1_000).toFixed(1)} s (its first background round)`,
      );

      const lookupTexts = cases.find((c) => c.name === "ref lookup")?.inputs ?? [];
      const floorTargets = {
        console: server,
        bare: { baseUrl: bare.baseUrl, authorization: server.authorization },
        lookupTexts,
      };
      const results: BenchResult[] = [];
      progress.start(cases.length, "cases  ");
      for (const [i, benchCase] of cases.entries()) {
        progress.update(i, benchCase.name);
        const sql = await measureSqlSide(benchCase, capture, client, { iterations, warmup, big });
        const api = await measureApiSide(benchCase, server, { iterations, warmup, firstInput: sql.inputsUsed });
        const floors = await measureFloors(benchCase, floorTargets, { iterations, warmup });
        results.push(toResult(benchCase.name, benchCase.targets, sql, api, floors));
      }
      progress.update(cases.length);
      progress.stop();

      log("the guard's claim path on the loaded table…");
      const guard = await measureGuardLatency(database.url, Math.max(200, iterations * 5));
      const page = await measurePageWeight(
        server.baseUrl,
        server.sessionCookie,
        "/records",
        Math.max(10, Math.min(50, iterations)),
      );
      const { rows: version } = await client.query<{ server_version: string }>("SHOW server_version");
      const replicas = await streamingReplicas(client);
      return {
        rows,
        results,
        iterations,
        machine: {
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model ?? "unknown",
          postgres: version[0]?.server_version ?? "unknown",
          date: new Date().toISOString(),
          replicas,
        },
        load,
        guard,
        page,
        database: database.name,
        planProblems: results.flatMap((r) => r.planProblems.map((p) => `${r.name}: ${p}`)),
      };
    } finally {
      await capture.db.$disconnect();
      await capture.pool.end();
      await client.end();
      await bare.stop();
      await server.stop();
    }
  } finally {
    if (options.keep) log(`kept database ${database.name} (--keep)`);
    else await database.drop();
  }
}

function toResult(
  name: string,
  targets: BenchResult["targets"],
  sql: { samples: number[]; plans: StatementPlan[]; statementCount: number },
  api: { samples: number[]; responseBytes: number },
  floors: Floors,
): BenchResult {
  const s = summarise(sql.samples);
  const a = summarise(api.samples);
  const missed: string[] = [];
  if (targets.sqlP95Ms !== null && s.p95Ms > targets.sqlP95Ms)
    missed.push(`SQL p95 ${s.p95Ms} ms > ${targets.sqlP95Ms} ms`);
  if (targets.apiP95Ms !== null && a.p95Ms > targets.apiP95Ms)
    missed.push(`API p95 ${a.p95Ms} ms > ${targets.apiP95Ms} ms`);
  const plan = planText(sql.plans);
  return {
    name,
    sqlP50Ms: s.p50Ms,
    sqlP95Ms: s.p95Ms,
    apiP50Ms: a.p50Ms,
    apiP95Ms: a.p95Ms,
    ratio: ratioOf(a.p50Ms, s.p50Ms),
    plan,
    planProblems: sql.plans.flatMap((p) => p.problems.map((problem) => `${problem} in: ${p.sql.slice(0, 100)}`)),
    statements: sql.statementCount,
    responseBytes: api.responseBytes,
    targets,
    missed,
    floors: {
      ...floors,
      caseOverTrivial: ratioOf(floors.caseP50Ms ?? a.p50Ms, floors.trivialP50Ms),
      trivialOverBare: ratioOf(floors.trivialP50Ms, floors.bareP50Ms),
    },
  };
}

/** As the console's start does after migrating: the bench's searchable fields' indexes (idem db index). */
export async function buildBenchSearchIndexes(url: string): Promise<void> {
  await ensureSearchIndexes(url, { tools: searchToolsOf(BENCH_SEARCH) }, { concurrently: false });
}

/** The bench's searchable fields as the tools part of a configuration. */
function searchToolsOf(search: Record<string, Record<string, string>>) {
  return Object.fromEntries(Object.entries(search).map(([tool, fields]) => [tool, { search: fields }]));
}
