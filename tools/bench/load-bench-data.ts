import "server-only";
import { createHash } from "node:crypto";
import pg from "pg";
import type { ProgressBar } from "@/lib/terminal/progress";
import { createPrismaClient } from "@/lib/db/prisma";
import { CATCH_UP_HOURS, rollUpClosedHours } from "@/lib/metrics/rollup";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";

/**
 * Fills a fresh, migrated database with `rows` claims over the last 48 h, distributed like the
 * demo world: tenants acme / globex / initech / umbrella at 4 : 3 : 2 : 1, tools charge_card 42 %,
 * send_receipt_email 25 %, create_shipment 18 %, refund_charge 10 %, unrecorded 5 %; 0.3 % of
 * claims left in_progress (older than any stuck threshold but the newest minutes'), completed
 * rows with a ~200 B receipt and a completion 20 ms – 1.5 s after the claim; writer events
 * (replays, in-flight rejections, outcome unknown) for about 5 % of claims, three in four naming
 * their calling host; every claim with its arguments hash, and 0.2 % of calls a repeat of the call
 * before under a new key (a duplicate that got through). Rows arrive in created_at order, as
 * writers append them. The duplicate scan then reads them all, as the console's round would.
 *
 * Fast on 2 cores: the secondary indexes and the primary key are dropped first and rebuilt
 * from their own definitions afterwards (two at a time), rows come from generate_series in
 * chunks, the metrics rollups are computed for the loaded hours by lib/metrics, then VACUUM
 * ANALYZE. Never more than two connections.
 */
export const HISTORY_HOURS = 48;
const CHUNK_ROWS = 200_000;

export const BENCH_TENANTS = ["acme", "globex", "initech", "umbrella"] as const;

/** The key of the i-th loaded row (1-based), as the SQL below derives it. */
export function benchKey(i: number): string {
  return createHash("sha256").update(`bench${i}`).digest("hex");
}

const INSERT_CHUNK = `
WITH numbered AS (
  SELECT i, (hashint8(i)::int8 & 2147483647) AS h,
         -- 0.2 % of calls repeat the call before them under a new key: a duplicate that got through.
         CASE WHEN i > 1 AND (hashint8(-i)::int8 & 2147483647) % 1000 < 2 THEN i - 1 ELSE i END AS op
  FROM generate_series($1::int8, $2::int8) AS i
), src AS (
  SELECT i, op, h,
         encode(sha256(convert_to('bench' || i, 'UTF8')), 'hex') AS key,
         (hashint8(op)::int8 & 2147483647) AS oh,
         $3::timestamptz + make_interval(secs => (i - 1) * $4::float8) AS created_at
  FROM numbered
), rows AS (
  SELECT key, created_at, h, (h / 10000) % 1000 AS s3,
         CASE WHEN oh % 100 < 40 THEN 'acme' WHEN oh % 100 < 70 THEN 'globex' WHEN oh % 100 < 90 THEN 'initech' ELSE 'umbrella' END AS tenant,
         CASE WHEN (oh / 100) % 100 < 42 THEN 'charge_card' WHEN (oh / 100) % 100 < 67 THEN 'send_receipt_email'
              WHEN (oh / 100) % 100 < 85 THEN 'create_shipment' WHEN (oh / 100) % 100 < 95 THEN 'refund_charge' END AS tool,
         CASE WHEN (h / 10000) % 1000 < 3 THEN 'in_progress' ELSE 'completed' END AS status,
         'u' || ((oh / 10000000) % 150) AS subject,
         -- As idem-guard records it: the operation's arguments, the same for a call and its duplicate.
         encode(sha256(convert_to('args' || op, 'UTF8')), 'hex') AS arguments_sha256
  FROM src
), claims AS (
  INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at, arguments_sha256)
  SELECT key, tenant, subject, tool, status,
         CASE WHEN status = 'completed' THEN jsonb_build_object(
           'id', 'ch_' || left(key, 16), 'status', 'succeeded', 'amount_cents', 499 + h % 50000, 'currency', 'usd',
           'card', 'c_' || (1000 + h % 200), 'email', subject || '@' || tenant || '.example', 'created', created_at) END,
         created_at,
         CASE WHEN status = 'completed' THEN created_at + (20 + h % 1500) * interval '1 millisecond' END,
         arguments_sha256
  FROM rows
)
INSERT INTO idempotency_event (key, tenant, tool, kind, at, client)
SELECT key, tenant, tool,
       CASE WHEN status = 'in_progress' THEN 'outcome_unknown' WHEN s3 % 10 = 0 THEN 'in_flight_rejected' ELSE 'replay_served' END,
       created_at + interval '2 seconds',
       -- The calling host from the MCP handshake; a quarter of writers do not record it.
       CASE (h / 3) % 4 WHEN 0 THEN 'claude-desktop 0.14.2' WHEN 1 THEN 'cursor 1.7.0' WHEN 2 THEN 'goose 1.9.1' END
FROM rows
WHERE (status = 'in_progress' AND s3 % 2 = 0) OR (status = 'completed' AND (h / 7) % 100 < 5)`;

/** Indexes dropped for the load: every index of the two big tables but idempotency_event's serial key. */
const DROPPED_INDEXES = `
SELECT i.indexname AS name, i.indexdef AS definition, c.conname AS constraint_name,
       CASE WHEN c.conname IS NOT NULL THEN format('ALTER TABLE %I ADD CONSTRAINT %I %s', i.tablename, c.conname, pg_get_constraintdef(c.oid)) END AS constraint_definition,
       i.tablename AS table_name
FROM pg_indexes i
LEFT JOIN pg_constraint c ON c.conname = i.indexname AND c.contype = 'p'
WHERE i.schemaname = current_schema() AND i.tablename IN ('idempotency', 'idempotency_event')
  AND i.indexname <> 'idempotency_event_pkey'
ORDER BY i.indexname`;

type DroppedIndex = {
  name: string;
  definition: string;
  constraint_name: string | null;
  constraint_definition: string | null;
  table_name: string;
};

export type LoadReport = {
  rows: number;
  events: number;
  /** Duplicates that got through, as the scan after the load found them (~0.2 % of claims). */
  duplicates: number;
  end: string;
  seconds: { rows: number; indexes: number; rollup: number; scan: number; vacuum: number };
};

export async function loadBenchData(url: string, rows: number, progress: ProgressBar): Promise<LoadReport> {
  const [a, b] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  await Promise.all([a.connect(), b.connect()]);
  const seconds = { rows: 0, indexes: 0, rollup: 0, scan: 0, vacuum: 0 };
  let duplicates = 0;
  const end = new Date();
  try {
    for (const client of [a, b]) {
      await client.query("SET maintenance_work_mem = '512MB'");
      // Two index builds at a time on two connections use both cores; parallel workers would add more processes.
      await client.query("SET max_parallel_maintenance_workers = 0");
      await client.query("SET synchronous_commit = off");
    }
    const { rows: dropped } = await a.query<DroppedIndex>(DROPPED_INDEXES);
    for (const index of dropped) {
      await a.query(
        index.constraint_name
          ? `ALTER TABLE "${index.table_name}" DROP CONSTRAINT "${index.constraint_name}"`
          : `DROP INDEX "${index.name}"`,
      );
    }

    let started = Date.now();
    const start = new Date(end.getTime() - HISTORY_HOURS * 3_600_000);
    const stepSeconds = (HISTORY_HOURS * 3600) / rows;
    progress.start(rows, "rows   ");
    for (let first = 1; first <= rows; first += CHUNK_ROWS) {
      const last = Math.min(rows, first + CHUNK_ROWS - 1);
      await a.query(INSERT_CHUNK, [first, last, start.toISOString(), stepSeconds]);
      progress.update(last);
    }
    progress.stop();
    seconds.rows = (Date.now() - started) / 1000;

    started = Date.now();
    progress.start(dropped.length, "indexes");
    const queue = [...dropped].sort((x, y) => (x.constraint_name ? -1 : 0) - (y.constraint_name ? -1 : 0));
    let built = 0;
    await Promise.all(
      [a, b].map(async (client) => {
        for (let index = queue.shift(); index; index = queue.shift()) {
          await client.query(index.constraint_definition ?? index.definition);
          progress.update((built += 1), index.name);
        }
      }),
    );
    progress.stop();
    seconds.indexes = (Date.now() - started) / 1000;

    started = Date.now();
    const db = createPrismaClient(url, 1);
    try {
      progress.start(CATCH_UP_HOURS, "rollup ");
      // Hours only: minute slices are rolled once the traffic since the load is appended (appendLiveTraffic),
      // or they would be rolled empty for the minutes the load took.
      await rollUpClosedHours(db, new Date(), {
        onHour: (hour, done) => progress.update(done, hour.toISOString().slice(0, 13)),
      });
      progress.stop();
    } finally {
      await db.$disconnect();
    }
    seconds.rollup = (Date.now() - started) / 1000;

    started = Date.now();
    await Promise.all([a.query("VACUUM (ANALYZE) idempotency"), b.query("VACUUM (ANALYZE) idempotency_event")]);
    await a.query("VACUUM (ANALYZE) metrics_hourly");
    seconds.vacuum = (Date.now() - started) / 1000;

    started = Date.now();
    const scanDb = createPrismaClient(url, 1);
    try {
      // As the console's background round would have (after ANALYZE, as on a live table):
      // every settled claim scanned for duplicates, every repeat counted.
      progress.start(1, "scan   ");
      const scan = await scanDuplicates(scanDb, { tools: {} }, new Date(), { maxChunks: Number.MAX_SAFE_INTEGER });
      duplicates = scan.found;
      progress.update(1);
      progress.stop();
    } finally {
      await scanDb.$disconnect();
    }
    seconds.scan = (Date.now() - started) / 1000;

    const { rows: counted } = await a.query<{ events: string }>("SELECT count(*) AS events FROM idempotency_event");
    return { rows, events: Number(counted[0]?.events ?? 0), duplicates, end: end.toISOString(), seconds };
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
}

/**
 * Writers do not stop while the bench loads and builds: this appends the traffic of the time since
 * the load's end, at the load's rate, continuing its row numbers and its timeline (row i is claimed
 * at start + (i − 1) × step). Run before the metrics cases, so their newest minutes hold what a live
 * table would — not the empty minutes after a load. Stops 2 s before `until`: a completion lands up
 * to 1.5 s after its claim, an event 2 s after, and neither may lie in the future. Returns the last
 * row number written.
 */
export async function appendLiveTraffic(
  url: string,
  load: { rows: number; end: string },
  appendedThrough: number,
  until: Date,
): Promise<number> {
  const stepSeconds = (HISTORY_HOURS * 3600) / load.rows;
  const start = new Date(Date.parse(load.end) - HISTORY_HOURS * 3_600_000);
  const last = load.rows + Math.floor((until.getTime() - 2_000 - Date.parse(load.end)) / 1000 / stepSeconds);
  if (last <= appendedThrough) return appendedThrough;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let first = appendedThrough + 1; first <= last; first += CHUNK_ROWS) {
      await client.query(INSERT_CHUNK, [
        first,
        Math.min(last, first + CHUNK_ROWS - 1),
        start.toISOString(),
        stepSeconds,
      ]);
    }
  } finally {
    await client.end();
  }
  return last;
}
