import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { exactTimeSql, parseExactTime } from "@/lib/format/exact-time";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";

/**
 * The record pieces that the record page, the resolve actions, bulk plans and the reconciler
 * share: which rows a caller may see (absent and "another tenant's" read the same: null or
 * missing, never "forbidden"), and a row's version for compare-and-set.
 */

/**
 * A row's version: its updated_at at full microsecond precision, as exact time text
 * (lib/format/exact-time.ts). A version round-tripped through a JavaScript Date would never
 * match a writer's now(); null is the version of a claim no one has touched since the INSERT.
 */
export const ROW_VERSION_SQL = exactTimeSql("updated_at");

/** Is this text a row version this console hands out (before it is compared in SQL)? */
export function isRowVersion(text: string): boolean {
  return parseExactTime(text) !== null;
}

/** The row, if it exists and the actor may see its tenant; otherwise null. */
export async function findVisibleRecord(db: Db, actor: Actor, key: string) {
  return db.idempotency.findFirst({ where: { key, ...actorTenantScope(actor).where } });
}

/** A claim as plans, applies and the record page read it: with its exact version, limited to the actor's tenants. */
export type VisibleClaim = {
  key: string;
  tenant: string;
  tool: string | null;
  status: string;
  created_at: Date;
  version: string | null;
};

export const CLAIM_COLUMNS = Prisma.raw(`key, tenant, tool, status, created_at, ${ROW_VERSION_SQL} AS version`);

/** The named rows the actor may see, with their versions; absent and other tenants' rows are simply missing. */
export async function readVisibleClaims(db: Db, actor: Actor, keys: string[]): Promise<Map<string, VisibleClaim>> {
  if (keys.length === 0) return new Map();
  const rows = await db.$queryRaw<
    VisibleClaim[]
  >`SELECT ${CLAIM_COLUMNS} FROM idempotency WHERE key = ANY(${keys}::text[]) ${actorTenantScope(actor).and()}`;
  return new Map(rows.map((row) => [row.key, row]));
}

/** One visible row's version (null: untouched since the INSERT, or no such row for this actor). */
export async function readRowVersion(db: Db, actor: Actor, key: string): Promise<string | null> {
  return (await readVisibleClaims(db, actor, [key])).get(key)?.version ?? null;
}
