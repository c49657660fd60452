import "server-only";
import { randomUUID } from "node:crypto";
import { Prisma } from "@/generated/prisma/client";
import type { IdemConfig } from "@/lib/config/schema";
import { exactTimeSql, isoMillisSql } from "@/lib/format/exact-time";
import type { ExportStatements, PlannedStatement } from "@/lib/records/export-reading";
import { keysetStatement, stuckCondition } from "@/lib/records/list-records";

/**
 * The statements of an export's keyset walk, newest first, with the export's columns: the first batch's,
 * and the one every later batch runs with the previous batch's last row in its cursor. Plain text and
 * values, for the export's worker thread, which reads the batches on its own connections.
 */
export function exportStatements(conditions: Prisma.Sql[], config: IdemConfig, now: Date): ExportStatements {
  // response as text: parsed on the worker thread where it is redacted, not by pg.
  // COALESCE: the condition is NULL, not false, for an unrecorded tool under a per-tool threshold.
  const columns = Prisma.sql`key, tenant, subject, tool, status,
    COALESCE(${stuckCondition(config, now)}, false) AS stuck,
    ${Prisma.raw(exactTimeSql("created_at"))} AS created_at_exact,
    ${Prisma.raw(isoMillisSql("updated_at"))} AS updated_at_iso, response::text AS response`;
  // The cursor's places in the values are found by these one-off markers, which no filter can hold.
  const marker = { createdAt: `cursor:${randomUUID()}`, key: `cursor:${randomUUID()}` };
  const first = planned(keysetStatement(columns, conditions, { cursor: null, dir: "next" }, 1));
  const after = planned(keysetStatement(columns, conditions, { cursor: marker, dir: "next" }, 1));
  const cursorAt = { createdAt: after.values.indexOf(marker.createdAt), key: after.values.indexOf(marker.key) };
  if (cursorAt.createdAt < 0 || cursorAt.key < 0) throw new Error("the export's keyset statement lost its cursor");
  return { first, after: { ...after, cursorAt } };
}

/** The statement as pg takes it, once its LIMIT is known to be its last parameter (the reader sets it per batch). */
function planned(sql: Prisma.Sql): PlannedStatement {
  const { text, values } = sql;
  if (!text.trimEnd().endsWith(`LIMIT $${values.length}`))
    throw new Error("the export's keyset statement no longer ends with its LIMIT");
  return { text, values: [...values] };
}
