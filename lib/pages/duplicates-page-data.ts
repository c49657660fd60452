import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { getConfig } from "@/lib/config/load";
import { getReadDb } from "@/lib/db/client";
import type { DuplicatesQuery } from "@/lib/duplicates/duplicates-params";
import { readDuplicates, type DuplicatesReport } from "@/lib/duplicates/duplicates-report";
import { checkTenantFilter, type UnknownTenant } from "@/lib/records/tenant-filter";

/** The duplicates page's data, from the read replica when there is one (a moment-old scan is as good). */
export async function loadDuplicatesPageData(
  actor: Actor,
  query: DuplicatesQuery,
): Promise<UnknownTenant | { ok: true; report: DuplicatesReport }> {
  const db = getReadDb();
  const tenant = await checkTenantFilter(db, actor, query.tenant);
  if (!tenant.ok) return tenant;
  return { ok: true, report: await readDuplicates(db, getConfig(), actor, query, new Date()) };
}
