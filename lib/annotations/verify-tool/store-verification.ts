import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import { insertSnapshot } from "@/lib/annotations/snapshot-store";
import { toVerificationResult } from "@/lib/annotations/tool-verification-row";
import type {
  ToolVerificationResult,
  VerificationEvidence,
  VerificationStep,
  VerificationVerdict,
} from "@/lib/annotations/tool-verification-types";
import { actorLabel, writeAudit } from "@/lib/audit/write-audit";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";

export type FinishedRun = {
  server: string;
  tool: string;
  listing: ListedTool[];
  listingHash: string;
  argumentsHash: string;
  concurrency: number;
  verdict: VerificationVerdict;
  step: VerificationStep | null;
  summary: string;
  evidence: VerificationEvidence;
  startedAt: Date;
  finishedAt: Date;
};

/**
 * Keeps a run as evidence: the listing it saw (a snapshot, so the tool audit can tell when a later
 * listing makes it stale), the `tool_verification` row and its `tool.verify` audit row, in one
 * transaction. The audit keeps the arguments' hash, not the arguments (they may hold personal data),
 * and the evidence without the answers' text.
 */
export async function storeVerification(
  db: Db,
  actor: Actor,
  run: FinishedRun,
): Promise<{ verification: ToolVerificationResult; auditId: string }> {
  return db.$transaction(async (tx) => {
    const snapshotId = await insertSnapshot(tx, {
      server: run.server,
      source: "live",
      takenBy: actor.name,
      tools: run.listing,
    });
    const row = await tx.toolVerification.create({
      data: {
        server: run.server,
        tool: run.tool,
        snapshotId: BigInt(snapshotId),
        listingHash: run.listingHash,
        argumentsHash: run.argumentsHash,
        concurrency: run.concurrency,
        verdict: run.verdict,
        step: run.step,
        summary: run.summary,
        evidence: run.evidence as unknown as Prisma.InputJsonValue,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        verifiedBy: actorLabel(actor),
      },
    });
    const audit = await writeAudit(tx, actor, {
      action: "tool.verify",
      after: {
        server: run.server,
        tool: run.tool,
        argumentsHash: run.argumentsHash,
        verdict: run.verdict,
        step: run.step,
        summary: run.summary,
        verificationId: String(row.id),
      },
      evidence: {
        concurrency: run.concurrency,
        checks: run.evidence.checks,
        calls: run.evidence.calls.map((c) => ({ phase: c.phase, outcome: c.outcome, ref: c.ref, ms: c.ms })),
        upstream: run.evidence.upstream,
        hint: run.evidence.hint,
      } as unknown as Prisma.InputJsonValue,
    });
    return { verification: toVerificationResult(row), auditId: String(audit.id) };
  });
}
