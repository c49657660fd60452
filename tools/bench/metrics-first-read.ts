// The metrics page's first 48 h read after a start, at many tenants (issue #31, item 4):
//   npx tsx --conditions=react-server tools/bench/metrics-first-read.ts [tenants=2000] [tools=5] [warm reads=20]
// (whole numbers: tenants 1–100,000, tools 1–100, warm reads 1–10,000).
// Makes a fresh database on DATABASE_URL's server (dropped after), writes the rolled-up hours a
// rollup of 48 h of traffic would have written — one metrics_hourly row per (hour, tenant, tool),
// each with a writer histogram of ~16 buckets — lists them as rolled up, then times getMetrics
// (48 h, every tenant, as an admin) in this process: the first read (nothing kept), the first read
// of one tenant, and warm reads of the same view. Prints the figures and the rows behind them.
import { performance } from "node:perf_hooks";
import pg from "pg";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient } from "@/lib/db/prisma";
import { migrate } from "@/lib/db/migrate";
import { parseWholeNumber } from "@/lib/field-rules/whole-number";
import { cliActor } from "@/lib/identity/cli-actor";
import { floorTo, HOUR_MS } from "@/lib/metrics/metrics-window";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { createBenchDatabase } from "./bench-database";
import { summarise } from "./percentiles";

// Checked before anything is created: a bad argument gets one line and exit 2.
const ARGUMENTS = [
  { name: "tenants", min: 1, max: 100_000, fallback: 2000 },
  { name: "tools", min: 1, max: 100, fallback: 5 },
  { name: "warm reads", min: 1, max: 10_000, fallback: 20 },
];
const given = process.argv.slice(2);
if (given.length > ARGUMENTS.length) refuse(`expected at most ${ARGUMENTS.length} arguments, got ${given.length}.`);
const [tenants, tools, warmReads] = ARGUMENTS.map(({ name, min, max, fallback }, i) => {
  if (given[i] === undefined) return fallback;
  const parsed = parseWholeNumber(given[i], min, max);
  return parsed.ok ? parsed.value : refuse(`${name}: ${parsed.message}`);
}) as [number, number, number];

function refuse(message: string): never {
  console.error(`metrics-first-read: ${message}`);
  process.exit(2);
}
const HOURS = 48;

const database = await createBenchDatabase();
try {
  await migrate(database.url);
  const now = new Date();
  const firstHour = floorTo(new Date(now.getTime() - HOURS * HOUR_MS), HOUR_MS);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const loadStarted = performance.now();
  await client.query(
    `INSERT INTO metrics_hourly (hour, tenant, tool, executions, completed, replays_served, latency)
     SELECT $1::timestamptz + h * interval '1 hour', 't' || t, 'tool_' || k,
            20 + (h + t + k) % 50, 19 + (h + t + k) % 50, (h * t + k) % 3,
            (SELECT jsonb_object_agg(b::text, 1 + (h + t + b) % 7) FROM generate_series(10, 25) AS b)
     FROM generate_series(0, $2::int - 1) AS h, generate_series(1, $3::int) AS t, generate_series(1, $4::int) AS k`,
    [firstHour, HOURS, tenants, tools],
  );
  await client.query(
    `INSERT INTO metrics_rollup_hour (hour, duration_ms) SELECT $1::timestamptz + h * interval '1 hour', 1 FROM generate_series(0, $2::int - 1) AS h`,
    [firstHour, HOURS],
  );
  await client.query("VACUUM ANALYZE metrics_hourly");
  const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM metrics_hourly");
  await client.end();
  console.log(
    `metrics_hourly: ${Number(rows[0]!.n).toLocaleString("en")} rows (${HOURS} h × ${tenants} tenants × ${tools} tools), written in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
  );

  const db = createPrismaClient(database.url, 4);
  const config = parseConfig("{}");
  const actor = cliActor();
  const read = async (tenant: string | null) => {
    const started = performance.now();
    const report = await getMetrics(db, config, actor, { window: "48h", tool: null, tenant }, new Date(), {
      rollUp: false,
    });
    return { ms: performance.now() - started, report };
  };
  const heap = () => Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  const heapBefore = heap();
  const first = await read(null);
  console.log(
    `first read, every tenant: ${first.ms.toFixed(0)} ms (heap ${heapBefore} → ${heap()} MiB); ${first.report.overall.executions.toLocaleString("en")} executions, ${first.report.tenants.length} tenants, ${first.report.tools.length} tools, ${first.report.source.rolledUpSteps} rolled-up steps`,
  );
  const firstTenant = await read("t7");
  console.log(`first read, one tenant (t7): ${firstTenant.ms.toFixed(0)} ms`);
  const warm: number[] = [];
  for (let i = 0; i < warmReads; i++) warm.push((await read(null)).ms);
  const w = summarise(warm);
  console.log(`warm reads, every tenant (${warmReads}): p50 ${w.p50Ms.toFixed(0)} ms, p95 ${w.p95Ms.toFixed(0)} ms`);
  await db.$disconnect();
} finally {
  await database.drop();
}
