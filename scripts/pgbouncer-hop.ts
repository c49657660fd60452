// What one PgBouncer hop (transaction mode) costs a console round trip, on this machine:
// `SELECT 1` and a one-row primary-key probe, sequentially, direct and through PgBouncer.
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx scripts/pgbouncer-hop.ts [iterations]
import pg from "pg";
import { startPgBouncer } from "../tests/helpers/pgbouncer";

const server = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const iterations = Number(process.argv[2] ?? 3000);
const bouncer = await startPgBouncer(server);

async function measure(
  url: string,
  text: string,
  values: unknown[],
): Promise<{ p50: number; p95: number; p99: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const ms: number[] = [];
  for (let i = 0; i < iterations + 200; i += 1) {
    const started = process.hrtime.bigint();
    await client.query(text, values);
    if (i >= 200) ms.push(Number(process.hrtime.bigint() - started) / 1e6); // after a warm-up
  }
  await client.end();
  ms.sort((a, b) => a - b);
  const at = (q: number) => Number(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(3));
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

try {
  const cases: [string, string, unknown[]][] = [
    ["SELECT 1", "SELECT 1", []],
    ["pk probe (pg_class by oid)", "SELECT relname FROM pg_class WHERE oid = $1", [1259]],
  ];
  console.log(`${iterations} sequential round trips each, ms`);
  for (const [name, text, values] of cases) {
    const direct = await measure(server, text, values);
    const pooled = await measure(bouncer.urlFor(server), text, values);
    console.log(
      `${name.padEnd(28)} direct p50 ${direct.p50} p95 ${direct.p95} p99 ${direct.p99} | pgbouncer p50 ${pooled.p50} p95 ${pooled.p95} p99 ${pooled.p99} | +${(pooled.p50 - direct.p50).toFixed(3)} ms at p50`,
    );
  }
} finally {
  await bouncer.stop();
}
