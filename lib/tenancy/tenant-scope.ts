import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";

/**
 * THE rule limiting a query to the tenants a caller may see, for Prisma `where` objects and raw
 * SQL alike: every query that reads tenant rows builds its limit here, so the rule is written
 * once. Records of other tenants must look absent (404), never forbidden (403): existence is
 * data too.
 */
export type TenantScope = {
  /** The tenants whose rows may be read; null means every tenant. */
  readonly tenants: string[] | null;
  /** The Prisma `where` fragment: `{ tenant: { in: tenants } }`, or {} for every tenant. */
  readonly where: { tenant?: { in: string[] } };
  /** The raw SQL condition on a tenant column (default `tenant`) as a list to AND with others: empty for every tenant. */
  conditions(column?: Prisma.Sql): Prisma.Sql[];
  /** The condition as `AND …`, to follow other conditions; nothing for every tenant. */
  and(column?: Prisma.Sql): Prisma.Sql;
  /** The condition as a whole `WHERE …`; nothing for every tenant. */
  whereClause(column?: Prisma.Sql): Prisma.Sql;
  /** The tenants as one `text[]` value (NULL for every tenant), for a statement to hold once and read with andFrom. */
  readonly list: Prisma.Sql;
  /**
   * The condition as `AND …`, with the tenants read from `list`, an expression of the statement holding `list` (a
   * column of a subquery the planner keeps, so a prepared statement's plans all estimate it alike); nothing for
   * every tenant.
   */
  andFrom(list: Prisma.Sql, column?: Prisma.Sql): Prisma.Sql;
};

const TENANT_COLUMN = Prisma.sql`tenant`;

/** The scope of a list of tenants: null (or none) means every tenant. */
export function tenantScopeOf(tenants: readonly string[] | null): TenantScope {
  const limited = tenants !== null && tenants.length > 0 ? [...tenants] : null;
  const list = limited === null ? Prisma.sql`NULL::text[]` : Prisma.sql`${limited}::text[]`;
  // The one definition; every form below is this condition or its absence.
  const condition = (column: Prisma.Sql = TENANT_COLUMN, from: Prisma.Sql = list): Prisma.Sql | null =>
    limited === null ? null : Prisma.sql`${column} = ANY(${from})`;
  const prefixed = (keyword: string, column?: Prisma.Sql): Prisma.Sql => {
    const sql = condition(column);
    return sql === null ? Prisma.empty : Prisma.sql`${Prisma.raw(keyword)} ${sql}`;
  };
  return {
    tenants: limited,
    where: limited === null ? {} : { tenant: { in: limited } },
    conditions: (column) => {
      const sql = condition(column);
      return sql === null ? [] : [sql];
    },
    and: (column) => prefixed("AND", column),
    whereClause: (column) => prefixed("WHERE", column),
    list,
    andFrom: (from, column) => {
      const sql = condition(column, from);
      return sql === null ? Prisma.empty : Prisma.sql`AND ${sql}`;
    },
  };
}

/** The scope of an actor: their tenants, or every tenant when they have none. */
export function actorTenantScope(actor: Actor): TenantScope {
  return tenantScopeOf(actor.tenants);
}
