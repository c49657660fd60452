import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/auth/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { stuckCondition } from "@/lib/records/list-records";

export type OverviewCounts = {
  /** For a large table, pg_class's estimate (count(*) takes seconds at 10 M rows). */
  records: number;
  recordsIsEstimate: boolean;
  inProgress: number;
  /** in_progress past each tool's stuckAfter threshold (lib/records/stuck-threshold.ts). */
  stuck: number;
  oldestInProgressAt: Date | null;
  newestRecordAt: Date | null;
};

/** Headline figures for the overview page, limited to the tenants the actor may see. */
export async function getOverviewCounts(db: Db, actor: Actor, config: IdemConfig, now: Date): Promise<OverviewCounts> {
  const scoped = actor.tenants.length > 0;
  const tenantFilter = scoped ? { tenant: { in: actor.tenants } } : {};
  const [records, inProgress, stuck, oldest, newest] = await Promise.all([
    scoped ? db.idempotency.count({ where: tenantFilter }).then((value) => ({ value, estimate: false })) : countRows(db),
    db.idempotency.count({ where: { ...tenantFilter, status: "in_progress" } }),
    countStuck(db, actor, config, now),
    db.idempotency.findFirst({ where: { ...tenantFilter, status: "in_progress" }, orderBy: { createdAt: "asc" }, select: { createdAt: true } }),
    db.idempotency.findFirst({ where: tenantFilter, orderBy: { createdAt: "desc" }, select: { createdAt: true } }),
  ]);
  return {
    records: records.value,
    recordsIsEstimate: records.estimate,
    inProgress,
    stuck,
    oldestInProgressAt: oldest?.createdAt ?? null,
    newestRecordAt: newest?.createdAt ?? null,
  };
}

async function countRows(db: Db): Promise<{ value: number; estimate: boolean }> {
  const rows = await db.$queryRaw<{ estimate: number }[]>`
    SELECT GREATEST(reltuples, 0)::float8 AS estimate FROM pg_class WHERE oid = 'idempotency'::regclass`;
  const estimate = rows[0]?.estimate ?? 0;
  // A never-analysed small table reports 0 or -1: count it exactly, it is cheap then.
  if (estimate > 100_000) return { value: Math.round(estimate), estimate: true };
  return { value: await db.idempotency.count(), estimate: false };
}

/** The partial `status <> 'completed'` index serves it: only claims without an outcome are read. */
async function countStuck(db: Db, actor: Actor, config: IdemConfig, now: Date): Promise<number> {
  const tenants = actor.tenants.length > 0 ? Prisma.sql`AND tenant = ANY(${actor.tenants}::text[])` : Prisma.empty;
  const [row] = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM idempotency WHERE ${stuckCondition(config, now)} ${tenants}`;
  return Number(row?.n ?? 0);
}
