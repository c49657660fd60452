import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";

/**
 * Per tool: the duplicates that got through in [since, until) and whether its writer records the
 * arguments hash at all. `duplicates: null` means "not recorded" (no scanned claim of the tool
 * carried a hash), never 0. Exact for claims created before `scannedThrough`; younger ones are not
 * scanned yet (at most the scan's settle time plus a round).
 */
export type ToolDuplicates = { tool: string; duplicates: number | null; hashedClaims: number };
export type DuplicateFigures = { scannedThrough: string | null; byTool: ToolDuplicates[] };

export async function duplicateFigures(
  db: Db,
  scope: TenantScope,
  range: { since: Date; until: Date; tool?: string; tenant?: string },
): Promise<DuplicateFigures> {
  const filters = [
    ...scope.conditions(),
    ...(range.tool === undefined ? [] : [Prisma.sql`tool = ${range.tool}`]),
    ...(range.tenant === undefined ? [] : [Prisma.sql`tenant = ${range.tenant}`]),
  ];
  const and = filters.length === 0 ? Prisma.empty : Prisma.sql`AND ${Prisma.join(filters, " AND ")}`;
  // Hashed claims by their hour (the hour holding `since` counts whole: it only decides "recorded");
  // duplicates exactly, from the pairs themselves.
  const rows = await db.$queryRaw<{ tool: string; hashed: bigint; duplicates: bigint }[]>`
    WITH hashed AS (
      SELECT tool, sum(hashed) AS hashed FROM duplicate_scan_hourly
      WHERE hour >= date_trunc('hour', ${range.since}::timestamptz, 'UTC') AND hour < ${range.until} ${and}
      GROUP BY tool
    ),
    pairs AS (
      SELECT tool, count(*) AS duplicates FROM duplicate_through
      WHERE second_at >= ${range.since} AND second_at < ${range.until} ${and}
      GROUP BY tool
    )
    SELECT COALESCE(h.tool, p.tool) AS tool, COALESCE(h.hashed, 0)::bigint AS hashed,
           COALESCE(p.duplicates, 0)::bigint AS duplicates
    FROM hashed h FULL JOIN pairs p USING (tool)
    ORDER BY 1`;
  const [state] = await db.$queryRaw<{ scannedThrough: Date | null }[]>`
    SELECT (SELECT scanned_through FROM duplicate_scan_state WHERE id = 1) AS "scannedThrough"`;
  return {
    scannedThrough: state?.scannedThrough?.toISOString() ?? null,
    byTool: rows.map((r) => ({
      tool: r.tool,
      hashedClaims: Number(r.hashed),
      duplicates: Number(r.hashed) === 0 && Number(r.duplicates) === 0 ? null : Number(r.duplicates),
    })),
  };
}
