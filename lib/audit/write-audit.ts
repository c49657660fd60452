import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { Prisma } from "@/generated/prisma/client";

type Tx = Pick<Prisma.TransactionClient, "auditLog">;
type Json = Prisma.InputJsonValue;

export type AuditEntry = {
  action: string;
  key?: string | null;
  tenant?: string | null;
  before?: Json | null;
  after?: Json | null;
  reason?: string | null;
  evidence?: Json | null;
};

/** Appends one audit row. Call it with the transaction that makes the change it records. */
export async function writeAudit(tx: Tx, actor: Actor, entry: AuditEntry): Promise<{ id: bigint }> {
  return tx.auditLog.create({
    select: { id: true },
    data: {
      actor: actorLabel(actor),
      actorRole: actor.role,
      action: entry.action,
      key: entry.key ?? null,
      tenant: entry.tenant ?? null,
      before: entry.before ?? undefined,
      after: entry.after ?? undefined,
      reason: entry.reason ?? null,
      evidence: entry.evidence ?? undefined,
    },
  });
}

export function actorLabel(actor: Actor): string {
  return actor.kind === "user" ? actor.name : `${actor.kind}:${actor.name}`;
}
