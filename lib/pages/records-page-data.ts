import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { getConfig } from "@/lib/config/load";
import { getDb, getReadDb } from "@/lib/db/client";
import type { RecordsQuery } from "@/lib/records/list-filters";
import { loadRecordsListing, type RecordsListing } from "@/lib/records/records-listing";
import { checkTenantFilter, type UnknownTenant } from "@/lib/records/tenant-filter";
import { loadStuckClaims, readClaimVersions } from "@/lib/records/stuck-claims";
import { can } from "@/lib/auth/permissions";

// What the record pages show, read for them: pages get data here, never from lib/db. The records
// list reads the replica (getReadDb); the stuck list is the resolve work queue, read again right
// after each resolve, so it reads the primary (docs/architecture.md, "Reads and the replica").

export async function loadRecordsPageData(
  actor: Actor,
  query: RecordsQuery,
): Promise<UnknownTenant | { ok: true; listing: RecordsListing; configuredTools: string[] }> {
  const db = getReadDb();
  const tenant = await checkTenantFilter(db, actor, query.tenant);
  if (!tenant.ok) return tenant;
  const config = getConfig();
  return {
    ok: true,
    listing: await loadRecordsListing(db, actor, query, config, new Date()),
    configuredTools: Object.keys(config.tools),
  };
}

export async function loadStuckPageData(
  actor: Actor,
  query: Parameters<typeof loadStuckClaims>[2],
): Promise<
  | UnknownTenant
  | { ok: true; data: Awaited<ReturnType<typeof loadStuckClaims>>; versions: Record<string, string | null> | null }
> {
  const db = getDb();
  const tenant = await checkTenantFilter(db, actor, query.tenant);
  if (!tenant.ok) return tenant;
  const data = await loadStuckClaims(db, actor, query, getConfig(), new Date());
  // Those who may resolve from the list get each row's exact version, the compare-and-set's expectation.
  const versions = can(actor.role, "records:resolve") ? await readClaimVersions(db, actor, data.claims) : null;
  return { ok: true, data, versions };
}
