import type { NextStuckClaim, StuckFilter } from "@/lib/records/stuck-claims";
import type { RowSnapshot } from "@/lib/resolve/resolution";
import type { ResolvedClaim } from "@/lib/resolve/resolved-claim";
import type { ResolveAnswer } from "@/lib/api/contracts/answers";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";

export type ResolveAttempt =
  | { kind: "resolved"; resolved: ResolvedClaim; nextStuck: NextStuckClaim | null }
  | { kind: "conflict"; message: string; current: RowSnapshot | null | undefined }
  | { kind: "refused"; message: string };

/**
 * Every page resolves one claim through here: the resolve route (api.resolveRecord), the one
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
  const answer = await callApi(api.resolveRecord, {
    params: { key },
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
