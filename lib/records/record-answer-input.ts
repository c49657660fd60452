import type { IdemConfig } from "@/lib/config/schema";
import type { AnswerInput, OtherClaim, RecordedCheck } from "@/lib/records/answer-sentence";
import type { KeyProtection } from "@/lib/records/key-protection";

// Audit actions that delete the row: a claim after one of them is a new claim of the same key.
const ROW_DELETING = new Set(["record.release", "record.force_release", "record.allow_repeat"]);

type AuditLike = { at: string; actor: string; action: string; evidence: unknown };
type DuplicateClaim = { key: string; ref: string; createdAt: string };

/**
 * What the answer sentence reads from a record's detail: the row, its writer's events, and the
 * processor answers the audit log kept (a resolution's evidence; "Ask the processor" alone
 * records nothing). Evidence from before this claim's created_at belongs to an earlier claim.
 */
export function answerInputOf(
  config: Pick<IdemConfig, "tools">,
  row: { key: string; status: string; tool: string | null; createdAt: Date; updatedAt: Date | null; response: unknown },
  read: {
    response: { value: unknown };
    stuck: boolean;
    events: { kind: string; at: Date }[];
    audit: AuditLike[];
    protection: KeyProtection;
    /** The duplicate scan's pairs this claim is part of (lib/duplicates), with what the other claim's row says now. */
    duplicates?: { first: DuplicateClaim; second: DuplicateClaim; otherOutcome: OtherClaim["outcome"] }[];
  },
): AnswerInput {
  const createdAt = row.createdAt.toISOString();
  const unknownEvents = read.events.filter((e) => e.kind === "outcome_unknown" && e.at >= row.createdAt);
  const checks: RecordedCheck[] = [];
  let earlierClaimEndedAt: string | null = null;
  for (const entry of read.audit) {
    if (entry.at < createdAt) {
      if (ROW_DELETING.has(entry.action)) earlierClaimEndedAt = entry.at;
      continue;
    }
    const evidence = entry.evidence as { outcome?: unknown; reason?: unknown; checkedAt?: unknown } | null;
    if (typeof evidence?.outcome !== "string") continue;
    checks.push({
      at: typeof evidence.checkedAt === "string" ? evidence.checkedAt : entry.at,
      outcome: evidence.outcome,
      reason: typeof evidence.reason === "string" ? evidence.reason : null,
      actor: entry.actor,
      action: entry.action,
    });
  }
  const search =
    row.tool === null ? undefined : (config.tools[row.tool] as { search?: Record<string, string> })?.search;
  return {
    status: row.status,
    tool: row.tool,
    createdAt,
    updatedAt: row.updatedAt?.toISOString() ?? null,
    stuck: read.stuck,
    response: read.response.value,
    responsePresent: row.response !== null,
    outcomeUnknownAt: unknownEvents.at(-1)?.at.toISOString() ?? null,
    checks,
    earlierClaimEndedAt,
    protectionUntil: read.protection.until,
    protectionEnded: read.protection.kind === "bucket" && read.protection.ended,
    searchLabels: search,
    duplicates: (read.duplicates ?? [])
      .map((pair) => {
        const other = pair.second.key === row.key ? pair.first : pair.second;
        return { ref: other.ref, createdAt: other.createdAt, outcome: pair.otherOutcome };
      })
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
  };
}
