import type {
  ToolVerificationResult,
  VerificationEvidence,
  VerificationStep,
  VerificationVerdict,
} from "./tool-verification-types";

/** A `tool_verification` row as Prisma reads it. */
export type ToolVerificationRow = {
  id: bigint;
  server: string;
  tool: string;
  snapshotId: bigint | null;
  listingHash: string;
  argumentsHash: string;
  concurrency: number;
  verdict: string;
  step: string | null;
  summary: string;
  evidence: unknown;
  startedAt: Date;
  finishedAt: Date;
  verifiedBy: string;
};

/** The stored run as the API, the tool audit and its exports show it (the table's CHECKs keep verdict and step in range). */
export function toVerificationResult(row: ToolVerificationRow): ToolVerificationResult {
  return {
    id: String(row.id),
    server: row.server,
    tool: row.tool,
    verdict: row.verdict as VerificationVerdict,
    step: row.step as VerificationStep | null,
    summary: row.summary,
    concurrency: row.concurrency,
    argumentsHash: row.argumentsHash,
    listingHash: row.listingHash,
    snapshotId: row.snapshotId === null ? null : String(row.snapshotId),
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt.toISOString(),
    verifiedBy: row.verifiedBy,
    evidence: row.evidence as VerificationEvidence,
  };
}
