import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";
import { scanFilters, scanWatermark, type ScanRange } from "@/lib/scan/scan-watermark";
import type { ScanReader } from "@/lib/scan/scan-snapshot";

/**
 * Per tool: the duplicates that got through in [since, until) and whether its writer records the
 * arguments hash at all. `duplicates: null` means "not recorded" (no scanned claim of the tool
 * carried a hash), never 0. Exact for claims created before `scannedThrough`; younger ones are not
 * scanned yet (at most the scan's settle time plus a round). Read it in one snapshot with anything
 * else of the scan's shown beside it (atOneScanSnapshot).
 */
export type ToolDuplicates = {
  tool: string;
  duplicates: number | null;
  hashedClaims: number;
  /** Calls refused because their key held a row with other arguments; null like `duplicates`. */
  argumentsMismatches: number | null;
};
export type DuplicateFigures = { scannedThrough: string | null; byTool: ToolDuplicates[] };

export async function duplicateFigures(
  db: ScanReader,
  scope: TenantScope,
  range: ScanRange,
): Promise<DuplicateFigures> {
  const filters = scanFilters(scope, range);
  const and = filters.length === 0 ? Prisma.empty : Prisma.sql`AND ${Prisma.join(filters, " AND ")}`;
  // Hashed claims by their hour (the hour holding `since` counts whole: it only decides "recorded").
  // Duplicates exactly: whole hours from the hourly counts (the scan writes them with the pairs, in
  // one transaction), the two partial hours at the window's edges from the pairs — never a week of pairs.
  const { wholeFrom, wholeTo } = wholeHours(range.since, range.until);
  const edges =
    wholeFrom < wholeTo
      ? Prisma.sql`((second_at >= ${range.since} AND second_at < ${wholeFrom}) OR (second_at >= ${wholeTo} AND second_at < ${range.until}))`
      : Prisma.sql`(second_at >= ${range.since} AND second_at < ${range.until})`;
  const rows = await db.$queryRaw<{ tool: string; hashed: bigint; duplicates: bigint; mismatches: bigint }[]>`
    WITH hashed AS (
      SELECT tool, sum(hashed) AS hashed, sum(arguments_mismatches) AS mismatches,
             sum(duplicates) FILTER (WHERE hour >= ${wholeFrom} AND hour < ${wholeTo}) AS whole_duplicates
      FROM duplicate_scan_hourly
      WHERE hour >= date_trunc('hour', ${range.since}::timestamptz, 'UTC') AND hour < ${range.until} ${and}
      GROUP BY tool
    ),
    pairs AS (
      SELECT tool, count(*) AS duplicates FROM duplicate_through WHERE ${edges} ${and} GROUP BY tool
    )
    SELECT COALESCE(h.tool, p.tool) AS tool, COALESCE(h.hashed, 0)::bigint AS hashed,
           (COALESCE(h.whole_duplicates, 0) + COALESCE(p.duplicates, 0))::bigint AS duplicates,
           COALESCE(h.mismatches, 0)::bigint AS mismatches
    FROM hashed h FULL JOIN pairs p USING (tool)
    ORDER BY 1`;
  return {
    scannedThrough: await scanWatermark(db),
    byTool: rows.map((r) => {
      const recorded = Number(r.hashed) > 0 || Number(r.duplicates) > 0 || Number(r.mismatches) > 0;
      return {
        tool: r.tool,
        hashedClaims: Number(r.hashed),
        duplicates: recorded ? Number(r.duplicates) : null,
        argumentsMismatches: recorded ? Number(r.mismatches) : null,
      };
    }),
  };
}

/** The whole UTC hours inside [since, until): from the first hour boundary at or after `since` to the last at or before `until`. */
function wholeHours(since: Date, until: Date): { wholeFrom: Date; wholeTo: Date } {
  const HOUR = 3_600_000;
  return {
    wholeFrom: new Date(Math.ceil(since.getTime() / HOUR) * HOUR),
    wholeTo: new Date(Math.floor(until.getTime() / HOUR) * HOUR),
  };
}
