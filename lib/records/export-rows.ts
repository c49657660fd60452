import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import { exactTimeSql, isoMillisSql } from "@/lib/format/exact-time";
import type { RecordsCursor } from "@/lib/records/list-cursor";
import type { ExportRow } from "@/lib/records/export-format";
import { keysetStatement, stuckCondition } from "@/lib/records/list-records";

/** One batch of an export: the records list's keyset step, newest first, with the export's columns. */
export function fetchExportRows(
  db: Db,
  conditions: Prisma.Sql[],
  cursor: RecordsCursor | null,
  take: number,
  config: IdemConfig,
  now: Date,
): Promise<ExportRow[]> {
  // response as text: parsed on the export's worker thread, not by pg on the event loop.
  // COALESCE: the condition is NULL, not false, for an unrecorded tool under a per-tool threshold.
  const columns = Prisma.sql`key, tenant, subject, tool, status,
    COALESCE(${stuckCondition(config, now)}, false) AS stuck,
    ${Prisma.raw(exactTimeSql("created_at"))} AS created_at_exact,
    ${Prisma.raw(isoMillisSql("updated_at"))} AS updated_at_iso, response::text AS response`;
  return rawQuery<ExportRow>(db, keysetStatement(columns, conditions, { cursor, dir: "next" }, take));
}
