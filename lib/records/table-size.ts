import "server-only";
import type { Db } from "@/lib/db/prisma";

/** How big the idempotency table is, from the catalog: never a count of its rows. */
export type TableSize = {
  /**
   * The planner's own estimate: pg_class.reltuples per page times the pages the table has now;
   * null before the first ANALYZE or VACUUM (reltuples −1), when there is nothing to scale.
   */
  rowsEstimate: number | null;
  /** pg_total_relation_size: the heap, its TOAST and every index. */
  totalBytes: number;
  /** The heap alone (pg_relation_size), for the split the overview shows. */
  tableBytes: number;
  /** totalBytes / rowsEstimate; null without an estimate or rows. */
  bytesPerRow: number | null;
  /** min(created_at): one step down the created_at index, not a scan. Null for an empty table. */
  oldestCreatedAt: Date | null;
};

type Row = {
  rows_estimate: number | null;
  total_bytes: bigint;
  table_bytes: bigint;
  oldest: Date | null;
};

/**
 * Catalog figures and one index probe: a fraction of a millisecond at 10 M rows, and no lock but
 * the ACCESS SHARE every read takes (pg_total_relation_size stats the files). The oldest row is
 * the first live entry of idempotency_created_at_key_idx; right after a trim it steps over the
 * entries of deleted rows until vacuum removes them, a bounded walk (one trim's batches).
 */
export async function readTableSize(db: Pick<Db, "$queryRaw">): Promise<TableSize> {
  const [row] = await db.$queryRaw<Row[]>`
    SELECT CASE WHEN c.reltuples < 0 THEN NULL
                WHEN c.relpages = 0 THEN c.reltuples::float8
                ELSE c.reltuples::float8 / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::int)
           END AS rows_estimate,
           pg_total_relation_size(c.oid) AS total_bytes,
           pg_relation_size(c.oid) AS table_bytes,
           (SELECT min(created_at) FROM idempotency) AS oldest
      FROM pg_class c
     WHERE c.oid = 'idempotency'::regclass`;
  const rowsEstimate = row?.rows_estimate === null || row === undefined ? null : Math.round(row.rows_estimate);
  const totalBytes = Number(row?.total_bytes ?? 0);
  return {
    rowsEstimate,
    totalBytes,
    tableBytes: Number(row?.table_bytes ?? 0),
    bytesPerRow: rowsEstimate !== null && rowsEstimate > 0 ? Math.round(totalBytes / rowsEstimate) : null,
    oldestCreatedAt: row?.oldest ?? null,
  };
}
