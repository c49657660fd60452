import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import type pg from "pg";
import { preparedStatementName } from "@/lib/db/prepared-statements";
import { preparesStatements, rawFaultHandlerOf, rawPoolOf, type Db } from "@/lib/db/prisma";

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
  // `prepareAs`: a statement of a fixed shape, planned once per connection where the client allows it.
  const name =
    options.prepareAs && preparesStatements(db) ? preparedStatementName(options.prepareAs, sql.text) : undefined;
  try {
    const { rows } = await pool.query<T & pg.QueryResultRow>({ name, text: sql.text, values: sql.values });
    return rows;
  } catch (error) {
    const handle = rawFaultHandlerOf(db);
    if (handle) return handle(error);
    throw error;
  }
}
