import pg from "pg";
import { behindTransactionPooler } from "@/lib/db/pooler";
import { UserError } from "@/lib/errors/user-error";
import type { IdemConfig } from "@/lib/config/schema";
import { SEARCH_INDEX_PREFIX, searchSpecs, toolLiteral, type SearchSpec } from "@/lib/config/search-specs";

/**
 * `idem db index`: the expression indexes that serve the configured searchable fields, one per
 * (tool, label): `(response #>> '{path}') WHERE tool = '<tool>'`. Rows whose writer records no
 * tool (NULL) are in none of them, so a searchable field never finds them (docs/indexes.md).
 * Each index carries its spec as its comment; one whose spec changed, or a CONCURRENTLY build
 * that failed half-way (invalid), is rebuilt, and the console's own idem_search_* indexes the
 * configuration no longer names are dropped. A second run changes nothing.
 */
export type SearchIndexReport = {
  created: string[];
  rebuilt: string[];
  kept: string[];
  dropped: string[];
  concurrently: boolean;
};

// Two servers starting at once take turns, as migrations do (lib/db/migrate.ts has its own id).
const SEARCH_INDEX_LOCK_ID = 7_2707_370;

type Existing = { name: string; valid: boolean; comment: string | null };

export async function ensureSearchIndexes(
  url: string,
  config: Pick<IdemConfig, "tools">,
  options: { concurrently: boolean; onChange?: (what: string) => void },
): Promise<SearchIndexReport> {
  const specs = searchSpecs(config);
  // CONCURRENTLY: writers keep writing while an index builds; the embedded database (one connection) has no one to wait for.
  const concurrently = options.concurrently ? "CONCURRENTLY " : "";
  if (behindTransactionPooler(url))
    throw new UserError(
      "idem db index holds a session advisory lock and builds CONCURRENTLY, which a transaction pooler (pgbouncer=true) cannot serve: set DATABASE_MIGRATE_URL to a direct connection to PostgreSQL.",
      1,
    );
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const report: SearchIndexReport = {
    created: [],
    rebuilt: [],
    kept: [],
    dropped: [],
    concurrently: options.concurrently,
  };
  try {
    await client.query("SELECT pg_advisory_lock($1)", [SEARCH_INDEX_LOCK_ID]);
    const existing = new Map((await existingIndexes(client)).map((index) => [index.name, index]));
    for (const spec of specs) {
      const found = existing.get(spec.indexName);
      existing.delete(spec.indexName);
      if (found && found.valid && found.comment === commentOf(spec)) {
        report.kept.push(spec.indexName);
        continue;
      }
      if (found) await client.query(`DROP INDEX ${concurrently}IF EXISTS "${spec.indexName}"`);
      await client.query(
        `CREATE INDEX ${concurrently}IF NOT EXISTS "${spec.indexName}" ON idempotency (${spec.expression}) WHERE tool = ${toolLiteral(spec.tool)}`,
      );
      await client.query(`COMMENT ON INDEX "${spec.indexName}" IS '${commentOf(spec).replace(/'/g, "''")}'`);
      (found ? report.rebuilt : report.created).push(spec.indexName);
      options.onChange?.(
        `${found ? "rebuilt" : "created"} ${spec.indexName} (${spec.tool} ${spec.label} = ${spec.path})`,
      );
    }
    // An expression index has no statistics until the table is analyzed: without them the planner
    // guesses its selectivity and may walk the tool index instead (a sample: about a second at 10 M rows).
    if (report.created.length + report.rebuilt.length > 0) await client.query("ANALYZE idempotency");
    for (const stale of existing.values()) {
      await client.query(`DROP INDEX ${concurrently}IF EXISTS "${stale.name}"`);
      report.dropped.push(stale.name);
      options.onChange?.(`dropped ${stale.name} (no longer configured)`);
    }
    return report;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [SEARCH_INDEX_LOCK_ID]).catch(() => {});
    await client.end();
  }
}

/** The console's own search indexes on idempotency, with their validity and spec. */
export async function existingIndexes(client: pg.Client | pg.Pool): Promise<Existing[]> {
  const { rows } = await client.query<Existing>(
    `SELECT c.relname AS name, i.indisvalid AS valid, obj_description(c.oid, 'pg_class') AS comment
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = 'idempotency'::regclass AND c.relname LIKE $1
     ORDER BY c.relname`,
    [`${SEARCH_INDEX_PREFIX.replace(/_/g, "\\_")}%`],
  );
  return rows;
}

function commentOf(spec: SearchSpec): string {
  return `idem search ${JSON.stringify({ tool: spec.tool, label: spec.label, path: spec.path })}`;
}
