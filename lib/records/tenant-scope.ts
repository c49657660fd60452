import type { Actor } from "@/lib/auth/actor";

/**
 * The Prisma `where` fragment limiting a query to the actor's tenants ({} when unrestricted).
 * Records of other tenants must look absent (404), never forbidden (403): existence is data too.
 */
export function tenantScope(actor: Actor): { tenant?: { in: string[] } } {
  return actor.tenants.length > 0 ? { tenant: { in: actor.tenants } } : {};
}

/** The same rule for raw SQL: null means every tenant, else the list to bind as `= ANY($n)`. */
export function tenantList(actor: Actor): string[] | null {
  return actor.tenants.length > 0 ? actor.tenants : null;
}
