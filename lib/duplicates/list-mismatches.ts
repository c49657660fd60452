import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";
import { refOf } from "idem-guard";

/** A call refused because its key held a row recorded with other arguments: a business key reused for another operation. */
export type MismatchEntry = {
  key: string;
  ref: string;
  tenant: string;
  tool: string | null;
  at: string;
  /** The calling host, where the writer recorded it. */
  client: string | null;
  /** The row's arguments hash and the refused call's, as the writer's event recorded them. */
  storedSha256: string | null;
  callSha256: string | null;
};

/** The newest refusals of the window (at most `limit`), from their partial index: events live as long as the table (48 h). */
export async function listMismatches(
  db: Db,
  scope: TenantScope,
  query: { since: Date; until: Date; tool?: string; tenant?: string; limit: number },
): Promise<MismatchEntry[]> {
  const filters = [
    Prisma.sql`kind = 'arguments_mismatch'`,
    Prisma.sql`at >= ${query.since}`,
    Prisma.sql`at < ${query.until}`,
    ...scope.conditions(),
    ...(query.tool === undefined ? [] : [Prisma.sql`tool = ${query.tool}`]),
    ...(query.tenant === undefined ? [] : [Prisma.sql`tenant = ${query.tenant}`]),
  ];
  const rows = await db.$queryRaw<
    {
      key: string;
      tenant: string;
      tool: string | null;
      at: Date;
      client: string | null;
      stored: unknown;
      call: unknown;
    }[]
  >`
    SELECT key, tenant, tool, at, client, detail ->> 'stored' AS stored, detail ->> 'call' AS call
    FROM idempotency_event WHERE ${Prisma.join(filters, " AND ")}
    ORDER BY at DESC, id DESC LIMIT ${query.limit}`;
  const hash = (value: unknown) => (typeof value === "string" && /^[0-9a-f]{64}$/.test(value) ? value : null);
  return rows.map((r) => ({
    key: r.key,
    ref: refOf(r.key),
    tenant: r.tenant,
    tool: r.tool,
    at: r.at.toISOString(),
    client: r.client,
    storedSha256: hash(r.stored),
    callSha256: hash(r.call),
  }));
}
