import type { NextStuckClaim, StuckFilter } from "@/lib/records/stuck-claims";
import type { RowSnapshot } from "@/lib/resolve/resolution";
import type { ResolvedClaim } from "@/lib/resolve/resolved-claim";
import { sendMutation } from "@/components/ui/send-mutation";

/** The resolve API's answer, as far as a page needs it. */
type ResolveAnswer = {
  action: "complete" | "release";
  forced: boolean;
  before: RowSnapshot;
  auditId: string;
  nextStuck: NextStuckClaim | null;
};

export type ResolveAttempt =
  | { kind: "resolved"; resolved: ResolvedClaim; nextStuck: NextStuckClaim | null }
  | { kind: "conflict"; message: string; current: RowSnapshot | null | undefined }
  | { kind: "refused"; message: string };

/**
 * Every page resolves one claim through here: POST /api/v1/records/{key}/resolve, the one
 * compare-and-set (on `version`, the row as the page saw it) with its required reason. The
 * server asks the processor again and decides; this only reads its answer.
 */
export async function sendResolve(
  key: string,
  input: {
    action: "complete" | "release";
    reason: string;
    version: string | null;
    force?: { confirm: string };
    /** The Stuck filter the caller works in: the next stuck claim offered is in it. */
    nextStuckWithin?: StuckFilter;
  },
): Promise<ResolveAttempt> {
  const answer = await sendMutation<ResolveAnswer>(`/api/v1/records/${encodeURIComponent(key)}/resolve`, {
    json: {
      action: input.action,
      reason: input.reason,
      expectedUpdatedAt: input.version,
      ...(input.force ? { force: true, confirm: input.force.confirm } : {}),
      ...(input.nextStuckWithin ? { nextStuckWithin: input.nextStuckWithin } : {}),
    },
    unreachable: "Nothing was changed.",
    accept: (value): value is ResolveAnswer => typeof value === "object" && value !== null && "auditId" in value,
  });
  if (answer.ok) {
    const { action, forced, before, auditId, nextStuck } = answer.value;
    return {
      kind: "resolved",
      resolved: { action, forced, key: before.key, tenant: before.tenant, tool: before.tool, auditId },
      nextStuck,
    };
  }
  if (answer.status === 409 && answer.code === "conflict")
    return {
      kind: "conflict",
      message: answer.message,
      current: answer.error.current as RowSnapshot | null | undefined,
    };
  return { kind: "refused", message: answer.message };
}
