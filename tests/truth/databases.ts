import pg from "pg";
import { createToken } from "@/lib/auth/tokens";
import { cliActor } from "@/lib/identity/cli-actor";
import { createPrismaClient } from "@/lib/db/prisma";
import { recountMetrics } from "@/lib/metrics/recount";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { startConsole, type ConsoleUnderTest } from "./console-under-test";
import { postJson, type SurfaceContext } from "./surface-context";
import { readThresholds, TruthDb } from "./truth-sql";

/** One database under test: its console, the truth beside it, and how to take it down. */
export type DatabaseUnderTest = { ctx: SurfaceContext; server: ConsoleUnderTest; stop(): Promise<void> };

export type DatabaseKind = "demo" | "bulk-after-analyze" | "embedded";

/**
 * (demo) a few hours of demo history on PostgreSQL, then operator resolutions (a bulk apply) and a
 *   reconciler run through the API, so writer and console completions are both in the figures;
 * (bulk-after-analyze) demo history, ANALYZE, autovacuum off, then a skewed bulk load the statistics
 *   know nothing of: 120,000 completed charge_card rows of one tenant, 1,500 stuck claims of a new tool;
 * (embedded) the embedded database (PGlite) as `npm run demo` serves it, with history and a bulk
 *   load that takes the table past the size where the console stops counting exactly.
 */
export async function startDatabase(kind: DatabaseKind): Promise<DatabaseUnderTest> {
  let database: TestDatabase | null = null;
  if (kind !== "embedded") {
    // PostgreSQL (the embedded database, in memory, only where the run has no PostgreSQL: see createTestDatabase).
    database = await createTestDatabase({ migrate: false });
  }
  const server = await startConsole({ databaseUrl: database?.url, historyHours: kind === "demo" ? 3 : 2 });
  const truth = new TruthDb(server.databaseUrl, readThresholds(server.configFile));
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= stopAll());
  const stopAll = async () => {
    await truth.end().catch(() => {});
    await server.stop();
    await database?.drop();
  };
  try {
    if (kind === "bulk-after-analyze") await bulkLoadAfterAnalyze(server.databaseUrl);
    if (kind === "embedded")
      await bulkLoad(server.databaseUrl, { rows: 15_000, tool: "refund_charge", tenant: "initech", stuck: 300 });
    // The bulk load is a backfill into hours the console's background roll-up may have frozen
    // already: count them again, as `idem rollup --recount-from` tells an operator to.
    if (kind !== "demo") await recountAfterBackfill(server.databaseUrl);
    const tokens = await createTokens(server.databaseUrl);
    const ctx: SurfaceContext = { database: kind, baseUrl: server.baseUrl, truth, tokens };
    // The tools audit and the metrics' known tools read stored listings: list the demo's MCP server now.
    await postJson(ctx, "/api/v1/tools/refresh", {});
    if (kind === "demo") await resolveAsOperators(ctx);
    return { ctx, server, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function createTokens(url: string): Promise<SurfaceContext["tokens"]> {
  const db = createPrismaClient(url, 1);
  try {
    const admin = await createToken(db, cliActor(), { name: "truth-admin", role: "admin" });
    const acme = await createToken(db, cliActor(), { name: "truth-acme", role: "viewer", tenants: ["acme"] });
    return { admin: admin.token, acme: acme.token };
  } finally {
    await db.$disconnect();
  }
}

/** Statistics made, then left stale: autovacuum may not analyse again, and a load they know nothing of. */
async function bulkLoadAfterAnalyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("ANALYZE idempotency");
    await client.query("ALTER TABLE idempotency SET (autovacuum_enabled = false)");
  } finally {
    await client.end();
  }
  await bulkLoad(url, { rows: 120_000, tool: "charge_card", tenant: "globex", stuck: 1_500 });
}

/**
 * Plain INSERT … SELECT: `rows` completed rows of one tool and tenant spread over the 36 hours
 * before the history (timed completions, 5–700 ms), and `stuck` in_progress claims of a tool no
 * listing or configuration names, hours old.
 */
async function bulkLoad(
  url: string,
  load: { rows: number; tool: string; tenant: string; stuck: number },
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at)
       SELECT encode(sha256(convert_to('truth-bulk-' || i, 'UTF8')), 'hex'), $2, 'bulk-' || (i % 97), $3, 'completed', '{"ok": true}'::jsonb,
              now() - interval '3 hours' - (i % 129600) * interval '1 second',
              now() - interval '3 hours' - (i % 129600) * interval '1 second' + (5 + i % 700) * interval '1 millisecond'
         FROM generate_series(1, $1::int) AS i`,
      [load.rows, load.tenant, load.tool],
    );
    await client.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at)
       SELECT encode(sha256(convert_to('truth-stuck-' || i, 'UTF8')), 'hex'), $2, 'bulk-' || (i % 13), 'import_ledger', 'in_progress',
              now() - interval '2 hours' - i * interval '1 second'
         FROM generate_series(1, $1::int) AS i`,
      [load.stuck, load.tenant],
    );
  } finally {
    await client.end();
  }
}

async function recountAfterBackfill(url: string): Promise<void> {
  const db = createPrismaClient(url, 2);
  try {
    const now = new Date();
    const outcome = await recountMetrics(db, cliActor(), new Date(now.getTime() - BULK_SPAN_MS), now);
    if (!outcome.ok) throw new Error(`recount after the bulk load refused: ${JSON.stringify(outcome)}`);
  } finally {
    await db.$disconnect();
  }
}

/** The bulk rows lie from 3 to 39 hours back; a recount from 40 h ago covers them all. */
const BULK_SPAN_MS = 40 * 3_600_000;

type PlannedRow = { key: string; proposed: "complete" | "release" | "leave"; expectedUpdatedAt: string | null };

/**
 * The reconciler sweeps ten of charge_card's stuck claims, operators resolve the rest (a bulk plan,
 * then apply: completions with the processor's receipt, releases of claims it never took):
 * console completions whose delay is the claim's age, not a writer's latency.
 */
async function resolveAsOperators(ctx: SurfaceContext): Promise<void> {
  await postJson(ctx, "/api/v1/reconcile", { filter: { tool: "charge_card", limit: 10 }, dryRun: false });
  const plan = await postJson<{ rows: PlannedRow[] }>(ctx, "/api/v1/bulk/plan", { filter: { tool: "charge_card" } });
  const rows = plan.rows
    .filter((r) => r.proposed !== "leave")
    .map((r) => ({ key: r.key, action: r.proposed, expectedUpdatedAt: r.expectedUpdatedAt }));
  for (let i = 0; i < rows.length; i += 50) {
    await postJson(ctx, "/api/v1/bulk/apply", {
      reason: "truth test: operators resolve stuck charges",
      rows: rows.slice(i, i + 50),
    });
  }
}
