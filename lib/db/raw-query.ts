import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import type pg from "pg";
import { preparedStatementName } from "@/lib/db/prepared-statements";
import { preparesStatements, rawFaultHandlerOf, rawPoolOf, stopPreparingStatements, type Db } from "@/lib/db/prisma";

/**
 * A read on the hot path of every lookup: sent on the client's own pg pool (same connections,
 * limits and failure handling) instead of through Prisma's raw-query path, which added ~0.4 ms a
 * statement (docs/bench.md, "The lookup's own cost"). Where there is no such pool (the bench's
 * capturing client, a transaction) it is the same statement through Prisma. Rows come back as pg
 * parses them: text, timestamptz as Date; a column of another type needs its own cast.
 */
export async function rawQuery<T>(db: Db, sql: Prisma.Sql, options: { prepareAs?: string } = {}): Promise<T[]> {
  const pool = rawPoolOf(db);
  if (!pool) return db.$queryRaw<T[]>(sql);
  // `prepareAs`: a statement of a fixed shape, parsed once per connection where the client allows it.
  const name =
    options.prepareAs && preparesStatements(db) ? preparedStatementName(options.prepareAs, sql.text) : undefined;
  const send = async (as: string | undefined) =>
    (await pool.query<T & pg.QueryResultRow>({ name: as, text: sql.text, values: sql.values })).rows;
  try {
    try {
      return await send(name);
    } catch (error) {
      if (!name || !NAMED_STATEMENT_MISMATCH.has(sqlState(error))) throw error;
      // A pooler the URL does not name, or connections sharing a session: this client stops preparing,
      // and the read (only reads are prepared) is sent again unnamed.
      stopPreparingStatements(db);
      console.error(
        `[database] a prepared statement was missing or taken on its connection (${sqlState(error)}): no longer preparing statements. Behind a transaction pooler, add pgbouncer=true to the database URL (docs/configuration.md).`,
      );
      return await send(undefined);
    }
  } catch (error) {
    const handle = rawFaultHandlerOf(db);
    if (handle) return handle(error);
    throw error;
  }
}

/**
 * 26000: the server connection holds no statement of that name; 42P05: it already holds one. Either
 * way the connection is not the one pg prepared on (a transaction pooler, a shared session).
 */
const NAMED_STATEMENT_MISMATCH = new Set(["26000", "42P05"]);

function sqlState(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
}
