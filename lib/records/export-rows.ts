import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import { exactTimeSql, isoMillisSql } from "@/lib/format/exact-time";
import type { RecordsCursor } from "@/lib/records/list-cursor";
import { keysetStatement, stuckCondition } from "@/lib/records/list-records";

/**
 * One row of an export: its cells as text the database wrote (no timestamp parsed into a Date and
 * written out again, twice a row, 100,000 rows a file) and the stuck verdict from the condition the
 * stuck filter uses.
 */
export type ExportRow = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  stuck: boolean;
  created_at_exact: string;
  updated_at_iso: string | null;
  response: unknown;
};

/** One batch of an export: the records list's keyset step, newest first, with the export's columns. */
export function fetchExportRows(
  db: Db,
  conditions: Prisma.Sql[],
  cursor: RecordsCursor | null,
  take: number,
  config: IdemConfig,
  now: Date,
): Promise<ExportRow[]> {
  // COALESCE: the condition is NULL, not false, for an unrecorded tool under a per-tool threshold.
  const columns = Prisma.sql`key, tenant, subject, tool, status,
    COALESCE(${stuckCondition(config, now)}, false) AS stuck,
    ${Prisma.raw(exactTimeSql("created_at"))} AS created_at_exact,
    ${Prisma.raw(isoMillisSql("updated_at"))} AS updated_at_iso, response`;
  return rawQuery<ExportRow>(db, keysetStatement(columns, conditions, { cursor, dir: "next" }, take));
}
