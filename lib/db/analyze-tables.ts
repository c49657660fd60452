import pg from "pg";

/**
 * The embedded database (PGlite) has no autovacuum, so its planner statistics never exist unless
 * someone runs ANALYZE: reltuples stays -1, pg_stats stays empty and every estimate is made from
 * nothing. This is autovacuum's analyze rule run by hand: a table never analysed, or changed by
 * more than 50 rows + 2 % of its size since (autovacuum's default is 10 %; 2 % keeps the records
 * facets' estimates of smaller tools fresh enough to show, lib/records/planner-statistics.ts).
 */
const CHANGED_ROWS = 50;
const CHANGED_SHARE = 0.02;

/** ANALYZEs every table of the current schema that needs it; returns their names. */
export async function analyzeStaleTables(client: pg.ClientBase): Promise<string[]> {
  // PGlite flushes its activity counters only when a statement starts a second or more after the
  // last flush, so n_mod_since_analyze can lag every write of the last second: flush them first
  // (on PostgreSQL this only flushes this session's own counters, and needs no privilege).
  await client.query("SELECT pg_stat_force_next_flush()").catch(() => {});
  const { rows } = await client.query<{ relname: string }>(
    `SELECT s.relname::text AS relname
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
       AND (COALESCE(s.last_analyze, s.last_autoanalyze) IS NULL
            OR s.n_mod_since_analyze > $1 + $2 * GREATEST(c.reltuples, 0))
     ORDER BY s.relname`,
    [CHANGED_ROWS, CHANGED_SHARE],
  );
  for (const { relname } of rows) await client.query(`ANALYZE ${pg.escapeIdentifier(relname)}`);
  return rows.map((r) => r.relname);
}

/** The same, on its own connection to `url`. */
export async function analyzeStaleTablesAt(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await analyzeStaleTables(client);
  } finally {
    await client.end();
  }
}

export type PeriodicAnalyze = {
  /** One pass after any pass already running: resolves with the tables it analysed. */
  runNow(): Promise<string[]>;
  stop(): Promise<void>;
};

/** While the embedded database serves: a pass every `everyMs` (one at a time; failures wait for the next). */
export function startPeriodicAnalyze(url: string, everyMs: number): PeriodicAnalyze {
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const runNow = () => {
    const pass = chain.then(() => analyzeStaleTablesAt(url));
    chain = pass.catch(() => {});
    return pass;
  };
  const timer = setInterval(() => {
    if (!stopped) runNow().catch(() => {}); // e.g. every connection slot taken: the next pass retries
  }, everyMs);
  timer.unref();
  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await chain;
    },
  };
}
