// The read replica's figures for docs/scaling.md: how far behind it runs, and where the console's reads go.
//
//   node scripts/replica-figures.mjs <console base URL> <bearer token> <primary URL> <replica URL> <seconds> <users>
//
// `users` concurrent API users cycle over lists, metrics, the tools audit, a lookup, a CSV export and the
// audit list (0: none, the writers alone) while a sampler, every 100 ms: reads the primary's
// pg_current_wal_lsn() and the replica's bytes behind it, then times how long until the replica has replayed
// that LSN (the visibility lag of a write made at that instant); and counts the console's active sessions on
// each server by application_name (idem-console, idem-console-export). Prints one JSON object.
import pg from "pg";

const [base, token, primaryUrl, replicaUrl, seconds, users] = process.argv.slice(2);
if (!users) {
  console.error(
    "usage: node scripts/replica-figures.mjs <base URL> <token> <primary URL> <replica URL> <seconds> <users>",
  );
  process.exit(2);
}
const database = new URL(primaryUrl).pathname.slice(1);
// The sampler's own sessions use each server's `postgres` database (WAL positions and pg_stat_activity are
// the whole server's), so the transaction counts of `database` are the console's and the writers' only.
const serverOf = (url) => Object.assign(new URL(url), { pathname: "/postgres" }).toString();
const primary = new pg.Client({ connectionString: serverOf(primaryUrl) });
const replica = new pg.Client({ connectionString: serverOf(replicaUrl) });
await primary.connect();
await replica.connect();

const table = new pg.Client({ connectionString: primaryUrl });
await table.connect();
const { rows: newest } = await table.query(
  "SELECT left(key, 12) AS ref FROM idempotency ORDER BY created_at DESC LIMIT 1",
);
await table.end();
const paths = [
  "/api/v1/records?limit=50",
  "/api/v1/metrics?window=24h",
  "/api/v1/tools/audit",
  `/api/v1/lookup?q=${newest[0]?.ref ?? "none"}`,
  "/api/v1/records/export?format=csv",
  "/api/v1/audit",
  "/api/v1/records?status=in_progress",
];
const end = Date.now() + Number(seconds) * 1000;
const requests = {};
let errors = 0;

async function user(first) {
  for (let n = first; Date.now() < end; n++) {
    const path = paths[n % paths.length];
    const answer = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
    if (!answer?.ok) errors++;
    await answer?.arrayBuffer();
    requests[path] = (requests[path] ?? 0) + 1;
  }
}

const ACTIVE = `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity
  WHERE datname = $1 AND state = 'active' AND application_name LIKE 'idem-console%' GROUP BY 1`;
const transactions = async (client) =>
  Number(
    (await client.query("SELECT xact_commit + xact_rollback AS x FROM pg_stat_database WHERE datname = $1", [database]))
      .rows[0].x,
  );
const before = { primary: await transactions(primary), replica: await transactions(replica) };
const bytesBehind = [];
const visibilityMs = [];
const active = { primary: {}, replica: {} };

async function sampler() {
  while (Date.now() < end) {
    const {
      rows: [at],
    } = await primary.query("SELECT pg_current_wal_lsn()::text AS lsn");
    const {
      rows: [lag],
    } = await replica.query(
      "SELECT GREATEST(pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()), 0)::float8 AS bytes",
      [at.lsn],
    );
    bytesBehind.push(lag.bytes);
    const started = performance.now();
    for (;;) {
      const {
        rows: [done],
      } = await replica.query("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done", [at.lsn]);
      if (done.done) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    visibilityMs.push(performance.now() - started);
    for (const [name, client] of [
      ["primary", primary],
      ["replica", replica],
    ])
      for (const row of (await client.query(ACTIVE, [database])).rows)
        active[name][row.app] = (active[name][row.app] ?? 0) + row.n;
    await new Promise((r) => setTimeout(r, 100));
  }
}

await Promise.all([sampler(), ...Array.from({ length: Number(users) }, (_, i) => user(i))]);
await new Promise((r) => setTimeout(r, 1_500)); // sessions flush their statistics within a second
const after = { primary: await transactions(primary), replica: await transactions(replica) };
const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
};
const spread = (values) => ({
  p50: percentile(values, 0.5),
  p95: percentile(values, 0.95),
  p99: percentile(values, 0.99),
  max: Math.max(0, ...values),
});
console.log(
  JSON.stringify(
    {
      seconds: Number(seconds),
      users: Number(users),
      requests,
      errors,
      samples: bytesBehind.length,
      samplesBehind: bytesBehind.filter((b) => b > 0).length,
      bytesBehind: spread(bytesBehind),
      visibilityLagMs: spread(visibilityMs.map((ms) => Math.round(ms * 100) / 100)),
      activeConsoleSessionSamples: active,
      transactions: { primary: after.primary - before.primary, replica: after.replica - before.replica },
    },
    null,
    1,
  ),
);
await primary.end();
await replica.end();
