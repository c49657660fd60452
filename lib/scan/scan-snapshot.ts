import "server-only";
import type pg from "pg";
import { Prisma } from "@/generated/prisma/client";
import { rawFaultHandlerOf, rawPoolOf, type Db } from "@/lib/db/prisma";

/** What a read of the scan's tables needs of a client: a transaction's client will do. */
export type ScanReader = Pick<Db, "$queryRaw">;

const BEGIN_SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/**
 * Runs `read` in one snapshot (REPEATABLE READ): the duplicate scan writes its pairs, hourly counts
 * and watermark in one transaction, so figures read here are exactly those through the watermark
 * read beside them. Statement by statement, a scan round could commit between the figures and the
 * watermark, and a page would say "counted through 12:05" over figures that stopped at 12:00.
 * On the client's pg pool, the isolation is given with BEGIN: a SET TRANSACTION leaves its two
 * settings marked as the session's on a pooled connection (tests/integration/pooled-session-state).
 */
export async function atOneScanSnapshot<T>(db: Db, read: (reader: ScanReader) => Promise<T>): Promise<T> {
  const pool = rawPoolOf(db);
  // A client with no pool of its own (the bench's capturing client, whose statements are replayed on
  // one connection in the order they were sent) reads statement by statement.
  if (!pool) return read(db);
  try {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(BEGIN_SNAPSHOT);
      const result = await read(readerOn(client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollback: Error) => (broken = rollback));
      throw error;
    } finally {
      // A connection that could not even roll back is closed, not handed to the next caller.
      client.release(broken);
    }
  } catch (error) {
    const handle = rawFaultHandlerOf(db);
    if (handle) return handle(error);
    throw error;
  }
}

/**
 * `$queryRaw` on one pg connection: a tagged template or a Prisma.Sql, rows as pg parses them. The
 * figures send some statements side by side (Promise.all); one connection takes them one at a time,
 * so they are queued here (pg's own queueing of a busy client is deprecated).
 */
function readerOn(client: pg.PoolClient): ScanReader {
  let last: Promise<unknown> = Promise.resolve();
  const queryRaw = (query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
    const sql = query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
    const rows = last.then(async () => (await client.query({ text: sql.text, values: sql.values })).rows);
    last = rows.catch(() => undefined);
    return rows;
  };
  return { $queryRaw: queryRaw as ScanReader["$queryRaw"] };
}
