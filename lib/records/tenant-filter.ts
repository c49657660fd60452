import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import type { DomainFailure } from "@/lib/errors/error-codes";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { unstorableTextReason } from "@/lib/text/storable-text";

/** A tenant named in a URL or an API filter that the caller cannot be answered about. */
export type UnknownTenant = DomainFailure<"unknown_tenant"> & { tenant: string };
export type TenantFilterCheck = { ok: true } | UnknownTenant;

/**
 * The one wording for "outside your tenants" and "does not exist": the two must read the same,
 * or the message itself tells a limited caller which tenants exist.
 */
export function unknownTenantMessage(tenant: string): string {
  return `no tenant '${printable(tenant)}' among yours`;
}

/** The name as typed, but control characters and lone surrogates escaped (\u0000), never echoed raw. */
function printable(tenant: string): string {
  return tenant.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * THE check every page and route that takes a tenant runs before it counts anything: a filter on
 * a tenant the caller may not see, or on one that has never existed, would otherwise be answered
 * with zeros and empty lists that read as facts about a real tenant.
 *
 * - A tenant-limited caller: the tenant must be one of theirs. Decided without touching the
 *   database, so neither the answer nor its timing says whether another tenant exists. One of
 *   their own tenants is accepted even with no rows: it is theirs, its zeros are true.
 * - An unrestricted caller: the tenant must have left a trace — a row in the idempotency table,
 *   the audit log (a released or trimmed tenant) or the hourly metrics. Writer events are not
 *   asked: an event's row is in the table, or was released (audited) or trimmed (its events with
 *   it). Each probe is one index look-up (tenantTraceQuery).
 */
export async function checkTenantFilter(db: Db, actor: Actor, tenant: string | null): Promise<TenantFilterCheck> {
  if (tenant === null) return { ok: true };
  const { tenants } = actorTenantScope(actor);
  if (tenants !== null) return tenants.includes(tenant) ? { ok: true } : unknownTenant(tenant);
  // Text PostgreSQL cannot store (a NUL) names no stored tenant, and would fail the query.
  if (unstorableTextReason(tenant) !== null) return unknownTenant(tenant);
  const [row] = await db.$queryRaw<{ known: boolean }[]>(tenantTraceQuery(tenant));
  return row?.known ? { ok: true } : unknownTenant(tenant);
}

/**
 * Has the tenant left a row in the table, the audit log or the hourly metrics? Each probe is
 * "its newest row", read from an index led by tenant (the tenant_lookup_indexes migration).
 * Not a plain EXISTS: for a tenant the statistics call common, the planner then prefers a
 * sequential scan that stops at the first match, and a tenant whose rows all sit at the end of
 * the heap (a new one) makes that a scan of the whole table. Ordered by the index's next column,
 * a scan would have to sort every match, so the index wins. Later probes run only if needed.
 */
export function tenantTraceQuery(tenant: string): Prisma.Sql {
  return Prisma.sql`
    SELECT (SELECT 1 FROM idempotency WHERE tenant = ${tenant} ORDER BY created_at DESC LIMIT 1) IS NOT NULL
        OR (SELECT 1 FROM audit_log WHERE tenant = ${tenant} ORDER BY at DESC LIMIT 1) IS NOT NULL
        OR (SELECT 1 FROM metrics_hourly WHERE tenant = ${tenant} ORDER BY hour DESC LIMIT 1) IS NOT NULL AS known`;
}

function unknownTenant(tenant: string): UnknownTenant {
  return { ok: false, code: "unknown_tenant", tenant, message: unknownTenantMessage(tenant) };
}
