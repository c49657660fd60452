import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";
import { refOf } from "idem-guard";

/** One operation executed twice: the two claims, the gap, and the bucket edge between them. */
export type DuplicateEntry = {
  tenant: string;
  subject: string | null;
  tool: string;
  argumentsSha256: string;
  first: { key: string; ref: string; createdAt: string };
  second: { key: string; ref: string; createdAt: string };
  gapMs: number;
  windowSeconds: number;
  /** The start of the bucket the second claim fell into, when the first lies in an earlier one; null: the same bucket. */
  bucketEdge: string | null;
};

export type DuplicateList = { entries: DuplicateEntry[]; nextCursor: string | null };

/** A duplicate_through row as read (the record page reads the same columns, lib/records/record-detail-read.ts). */
export type DuplicateRow = {
  tenant: string;
  subject: string | null;
  tool: string;
  argumentsSha256: string;
  firstKey: string;
  secondKey: string;
  firstAt: Date;
  secondAt: Date;
  windowS: number;
};

/** Newest first, keyset-paged by (second_at, second_key); the cursor is that pair. */
export async function listDuplicates(
  db: Db,
  scope: TenantScope,
  query: {
    since: Date;
    until: Date;
    tool?: string;
    tenant?: string;
    limit: number;
    cursor?: { at: Date; key: string };
  },
): Promise<DuplicateList> {
  const filters = [
    Prisma.sql`second_at >= ${query.since}`,
    Prisma.sql`second_at < ${query.until}`,
    ...scope.conditions(),
    ...(query.tool === undefined ? [] : [Prisma.sql`tool = ${query.tool}`]),
    ...(query.tenant === undefined ? [] : [Prisma.sql`tenant = ${query.tenant}`]),
    ...(query.cursor === undefined
      ? []
      : [Prisma.sql`(second_at, second_key) < (${query.cursor.at}, ${query.cursor.key})`]),
  ];
  const rows = await db.$queryRaw<DuplicateRow[]>`
    SELECT tenant, subject, tool, arguments_sha256 AS "argumentsSha256", first_key AS "firstKey",
           second_key AS "secondKey", first_at AS "firstAt", second_at AS "secondAt", window_s AS "windowS"
    FROM duplicate_through WHERE ${Prisma.join(filters, " AND ")}
    ORDER BY second_at DESC, second_key DESC LIMIT ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(duplicateEntryOf),
    nextCursor: rows.length > query.limit && last ? `${last.secondAt.toISOString()}~${last.secondKey}` : null,
  };
}

/** The two claims, the gap and the bucket edge between them, from the row the scan wrote. */
export function duplicateEntryOf(row: DuplicateRow): DuplicateEntry {
  const windowMs = row.windowS * 1000;
  // The bucket the writer derived from its own clock: whole seconds, then the floor division.
  const bucketOf = (at: Date) => Math.floor(Math.trunc(at.getTime() / 1000) / row.windowS);
  const secondBucket = bucketOf(row.secondAt);
  return {
    tenant: row.tenant,
    subject: row.subject,
    tool: row.tool,
    argumentsSha256: row.argumentsSha256,
    first: { key: row.firstKey, ref: refOf(row.firstKey), createdAt: row.firstAt.toISOString() },
    second: { key: row.secondKey, ref: refOf(row.secondKey), createdAt: row.secondAt.toISOString() },
    gapMs: row.secondAt.getTime() - row.firstAt.getTime(),
    windowSeconds: row.windowS,
    bucketEdge: bucketOf(row.firstAt) < secondBucket ? new Date(secondBucket * windowMs).toISOString() : null,
  };
}
