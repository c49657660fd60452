import "server-only";
import type { Db } from "@/lib/db/prisma";
import type { ChainVerification } from "@/lib/audit/verify-audit-chain";

/** The newest verification, as the Audit page and the scrape report it. */
export type ChainVerificationStatus = {
  ok: boolean;
  finishedAt: Date;
  rows: number;
  throughId: string | null;
  firstBad: { id: string; problem: "content" | "link" } | null;
};

/** Stores one `idem audit verify` run (its own small table: docs/audit-chain.md#verification-records). */
export async function recordChainVerification(
  db: Pick<Db, "auditChainVerification">,
  result: ChainVerification,
  actor: string,
): Promise<void> {
  await db.auditChainVerification.create({
    data: {
      startedAt: result.startedAt,
      finishedAt: result.finishedAt,
      actor,
      fromId: result.fromId === null ? null : BigInt(result.fromId),
      rows: BigInt(result.rows),
      throughId: result.throughId === null ? null : BigInt(result.throughId),
      ok: result.ok,
      firstBadId: result.firstBad ? BigInt(result.firstBad.id) : null,
      problem: result.firstBad?.problem ?? null,
    },
  });
}

/** The newest run (a probe of the primary key); null when the chain was never verified. */
export async function lastChainVerification(
  db: Pick<Db, "auditChainVerification">,
): Promise<ChainVerificationStatus | null> {
  const row = await db.auditChainVerification.findFirst({ orderBy: { id: "desc" } });
  if (row === null) return null;
  return {
    ok: row.ok,
    finishedAt: row.finishedAt,
    rows: Number(row.rows),
    throughId: row.throughId?.toString() ?? null,
    firstBad:
      row.firstBadId === null ? null : { id: row.firstBadId.toString(), problem: row.problem as "content" | "link" },
  };
}
