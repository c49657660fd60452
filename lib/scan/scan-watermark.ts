import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";

/** How far the duplicate scan has read (claims and events before it are counted), ISO; null: it never ran. */
export async function scanWatermark(db: Pick<Db, "$queryRaw">): Promise<string | null> {
  const [state] = await db.$queryRaw<{ scannedThrough: Date | null }[]>`
    SELECT (SELECT scanned_through FROM duplicate_scan_state WHERE id = 1) AS "scannedThrough"`;
  return state?.scannedThrough?.toISOString() ?? null;
}

/** A read of the scan's tables: its window, and the optional tool and tenant filters. */
export type ScanRange = { since: Date; until: Date; tool?: string; tenant?: string };

/** The caller's tenants and the range's tool / tenant filters on a scan table's own columns (one place for the rule). */
export function scanFilters(scope: TenantScope, range: ScanRange): Prisma.Sql[] {
  return [
    ...scope.conditions(),
    ...(range.tool === undefined ? [] : [Prisma.sql`tool = ${range.tool}`]),
    ...(range.tenant === undefined ? [] : [Prisma.sql`tenant = ${range.tenant}`]),
  ];
}
