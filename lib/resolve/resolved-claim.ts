import type { RowSnapshot } from "./resolution";

/**
 * What a confirmation says after a claim was resolved: which claim (its tool and tenant, from the
 * row's snapshot), what was done, and the audit entry that records it. Built from a resolve's
 * answer or from the audit entry itself, so the record page can say it again after a reload.
 */
export type ResolvedClaim = {
  /** allow_repeat: a completed record's deduplication ended (lib/resolve/allow-repeat.ts). */
  action: "complete" | "release" | "allow_repeat";
  forced: boolean;
  key: string;
  tenant: string;
  tool: string | null;
  auditId: string;
};

/** The audit actions a resolution writes, and what each one did. */
const RESOLUTION_ACTIONS: Record<string, Pick<ResolvedClaim, "action" | "forced">> = {
  "record.complete": { action: "complete", forced: false },
  "record.release": { action: "release", forced: false },
  "record.force_release": { action: "release", forced: true },
  "record.allow_repeat": { action: "allow_repeat", forced: false },
};

/** From an audit entry of this key; null when the entry is not a resolution of it. */
export function resolvedClaimFromAudit(
  key: string,
  entry: { id: string; action: string; key: string | null; tenant: string | null; before: unknown },
): ResolvedClaim | null {
  const kind = RESOLUTION_ACTIONS[entry.action];
  if (!kind || entry.key !== key) return null;
  const before = (entry.before ?? {}) as Partial<RowSnapshot>;
  return {
    ...kind,
    key,
    tenant: entry.tenant ?? before.tenant ?? "",
    tool: typeof before.tool === "string" ? before.tool : null,
    auditId: entry.id,
  };
}
