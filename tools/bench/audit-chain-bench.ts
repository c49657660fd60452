import "server-only";
import pg from "pg";
import { verifyAuditChain, type ChainVerification } from "@/lib/audit/verify-audit-chain";
import { migrate } from "@/lib/db/migrate";
import { watchBackendCpu } from "./backend-cpu";
import { createBenchDatabase } from "./bench-database";

export type AuditChainBenchReport = {
  rows: number;
  database: string;
  /** Loading through the chain trigger: every row hashed and linked as the console's own inserts are. */
  loadSeconds: number;
  tableBytes: number;
  verify: Pick<ChainVerification, "ok" | "rows" | "throughId" | "seconds">;
  verifyRowsPerSecond: number;
  /** The verifier's own CPU (this process: parsing, hashing): on a shared machine, wall time includes waiting for a core. */
  verifyCpuSeconds: number;
  /** The CPU of the database backend serving the verifier (null: the server is on another host). */
  verifyDatabaseCpuSeconds: number | null;
};

const LOAD_CHUNK = 50_000;
const VERIFY_APPLICATION_NAME = "idem-bench-audit-verify";

/**
 * `idem bench-audit`: a fresh database, `rows` audit entries shaped like the console's resolutions
 * (a before snapshot, evidence, a reason), appended through the real trigger in chunks of one
 * transaction each; then one `verifyAuditChain` over all of them, timed.
 */
export async function runAuditChainBench(options: {
  rows: number;
  batchSize?: number;
  keep: boolean;
  log: (line: string) => void;
}): Promise<AuditChainBenchReport> {
  const database = await createBenchDatabase();
  let databaseCpu: number | null = null;
  options.log(`bench database ${database.name}`);
  try {
    await migrate(database.url);
    const client = new pg.Client({ connectionString: database.url, application_name: "idem-bench" });
    await client.connect();
    const loadStart = performance.now();
    try {
      for (let done = 0; done < options.rows; done += LOAD_CHUNK) {
        const n = Math.min(LOAD_CHUNK, options.rows - done);
        await client.query(
          `INSERT INTO audit_log (at, actor, actor_role, action, key, tenant, before, after, reason, evidence)
           SELECT now() - make_interval(secs => ($1 - g) * 0.5),
                  CASE WHEN g % 3 = 0 THEN 'system:reconciler' ELSE 'operator' || (g % 17) || '@example.test' END,
                  'operator', CASE WHEN g % 4 = 0 THEN 'record.release' ELSE 'record.complete' END,
                  encode(sha256(g::text::bytea), 'hex'), 'tenant-' || (g % 40),
                  jsonb_build_object('status', 'in_progress', 'tool', 'charge_card', 'created_at', now(), 'response', NULL),
                  CASE WHEN g % 4 = 0 THEN NULL ELSE jsonb_build_object('status', 'completed') END,
                  'ticket ' || g || ': processor confirmed',
                  jsonb_build_object('outcome', 'taken', 'receipt', jsonb_build_object('id', 'ch_' || g, 'amount', g % 10000, 'currency', 'eur'))
             FROM generate_series($2::bigint + 1, $2::bigint + $3) g`,
          [options.rows, done, n],
        );
        options.log(`loaded ${(done + n).toLocaleString("en")} of ${options.rows.toLocaleString("en")} audit rows`);
      }
      await client.query("VACUUM ANALYZE audit_log");
    } finally {
      await client.end().catch(() => {});
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const sizeClient = new pg.Client({ connectionString: database.url });
    await sizeClient.connect();
    const tableBytes = Number(
      (await sizeClient.query("SELECT pg_total_relation_size('audit_log') AS b")).rows[0].b as string,
    );
    await sizeClient.end();

    const backend = watchBackendCpu(database.url, VERIFY_APPLICATION_NAME);
    const cpu = process.cpuUsage();
    const verified = await verifyAuditChain(database.url, {
      batchSize: options.batchSize,
      applicationName: VERIFY_APPLICATION_NAME,
      // The backend exits with the verifier's connection: sample its CPU while the last batch is in hand.
      beforeClose: async () => void (databaseCpu = await backend.stop()),
    });
    const used = process.cpuUsage(cpu);
    return {
      rows: options.rows,
      database: database.name,
      loadSeconds,
      tableBytes,
      verify: { ok: verified.ok, rows: verified.rows, throughId: verified.throughId, seconds: verified.seconds },
      verifyRowsPerSecond: Math.round(verified.rows / verified.seconds),
      verifyCpuSeconds: (used.user + used.system) / 1e6,
      verifyDatabaseCpuSeconds: databaseCpu,
    };
  } finally {
    if (!options.keep) await database.drop();
  }
}
