// Where the metrics read's SQL time goes, statement by statement: planning, execution and the
// round trip, each the median of N runs, on a database `idem bench --keep` left behind.
//   npx tsx --conditions=react-server scripts/metrics-statements.ts <database URL> [runs=30] [window=48h]
import pg from "pg";
import { CapturingPool } from "@/tools/bench/capturing-pool";
import { BENCH_ACTOR } from "@/tools/bench/run-bench";
import { configSchema } from "@/lib/config/schema";
import { createPrismaClientOnPool } from "@/lib/db/prisma";
import type { MetricsWindow } from "@/lib/metrics/metrics-params";
import { getMetrics } from "@/lib/metrics/query-metrics";

const [url, runsArg = "30", windowArg = "48h"] = process.argv.slice(2);
if (!url) throw new Error("usage: metrics-statements.ts <database URL> [runs] [window]");
const runs = Number(runsArg);
const config = configSchema.parse({});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const pool = new CapturingPool({ connectionString: url, max: 4 });
const db = createPrismaClientOnPool(pool);
const read = () =>
  getMetrics(db, config, BENCH_ACTOR, { window: windowArg as MetricsWindow, tool: null, tenant: null }, new Date());
await read(); // settles any roll-up first
const { statements } = await pool.capture(read);
const client = new pg.Client({ connectionString: url });
await client.connect();
let plan = 0;
let exec = 0;
let trip = 0;
console.log("planning  execution  round trip  statement (ms, medians)");
for (const s of statements) {
  const p: number[] = [];
  const e: number[] = [];
  const t: number[] = [];
  const explainable = /^\s*(SELECT|WITH)\b/i.test(s.text) && !/pg_advisory|set_config/i.test(s.text);
  for (let i = 0; i < runs; i++) {
    if (explainable) {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${s.text}`, s.values);
      const out = (rows[0] as { "QUERY PLAN": { "Planning Time": number; "Execution Time": number }[] })[
        "QUERY PLAN"
      ][0]!;
      p.push(out["Planning Time"]);
      e.push(out["Execution Time"]);
    }
    const started = performance.now();
    await client.query(s.text, s.values);
    t.push(performance.now() - started);
  }
  if (process.env.PLANS && median(e) > Number(process.env.PLANS)) {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.values);
    console.log(rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n"));
    console.log(JSON.stringify(s.values));
  }
  plan += median(p);
  exec += median(e);
  trip += median(t);
  console.log(
    `${median(p).toFixed(3).padStart(8)}  ${median(e).toFixed(3).padStart(9)}  ${median(t).toFixed(3).padStart(10)}  ${s.text.replace(/\s+/g, " ").slice(0, 110)}`,
  );
}
console.log(
  `${plan.toFixed(3).padStart(8)}  ${exec.toFixed(3).padStart(9)}  ${trip.toFixed(3).padStart(10)}  total of ${statements.length} statements`,
);
await client.end();
await db.$disconnect();
await pool.end();
