import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { redactJson, type Redaction } from "@/lib/privacy/redact";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { findTrimmedRefs, TRIMMED_REF_HORIZON_DAYS } from "@/lib/retention/trimmed-refs";

/** The audit actions that delete a claim: an operator's, a bulk apply's or the reconciler's release. */
export const RELEASE_ACTIONS = ["record.release", "record.force_release"] as const;
/** An operator ended a completed record's deduplication (lib/resolve/allow-repeat.ts): deleted as a release is. */
export const ALLOW_REPEAT_ACTION = "record.allow_repeat";
const DELETE_ACTIONS = [...RELEASE_ACTIONS, ALLOW_REPEAT_ACTION];
/** Releases a ref can name before the answer says "more" (two keys sharing 48 bits is already rare). */
const MAX_RELEASES_PER_REF = 20;

/** A claim someone released: the row is deleted, the audit entry keeps who, when, why and the snapshot. */
export type ReleasedRef = {
  auditId: string;
  at: string;
  actor: string;
  actorRole: string;
  action: string;
  /** Released without "not taken" evidence, by an admin. */
  forced: boolean;
  /** Not a release: a completed record whose deduplication an operator ended, so the next identical call ran again. */
  repeatAllowed: boolean;
  key: string;
  tenant: string | null;
  reason: string | null;
  /** The row as it was, masked with the configured paths as every audit snapshot is. */
  snapshot: unknown;
  redactedPaths: string[];
};

/** A row a retention batch deleted: its audit entry names the run, the cutoff and who ran it. */
export type TrimmedRef = {
  auditId: string;
  /** The run's id, shared by its batches' audit entries (evidence.runId). */
  runId: string | null;
  at: string;
  actor: string;
  action: string;
  tenant: string;
  /** Rows created before this instant were trimmed. */
  cutoff: string | null;
  olderThan: string | null;
  /** The match is on the ref (the key's first 12 characters): that is what a trim records. */
  matchedOn: "ref";
  /** Retention entries name no tenant, so only readers of every tenant see them in the audit log. */
  auditVisible: boolean;
};

/** released / repeat_allowed (the latest deletion) / trimmed when the audit log says so, within the reader's tenants; never_seen otherwise. */
export type RefFate = "released" | "repeat_allowed" | "trimmed" | "never_seen";

export type RefFates = { fate: RefFate; released: ReleasedRef[]; trimmed: TrimmedRef[] };

/**
 * What happened to each token (a 12-hex ref or a 64-hex key) that matches no row, within the
 * actor's tenants — another tenant's release or trim is never seen. Releases come from the audit
 * log on audit_log_key_at_idx: key is COLLATE "C", so the ref's prefix range `key >= ref AND
 * key < ref || 'g'` is an index range however large the log; trims from the packed trimmed refs.
 */
export async function traceFates(
  db: Db,
  actor: Actor,
  tokens: readonly string[],
  options: { redact: Redaction | readonly string[] },
): Promise<Map<string, RefFates>> {
  const scope = actorTenantScope(actor);
  const [releases, trims] = await Promise.all([
    Promise.all(
      tokens.map((token) =>
        db.auditLog.findMany({
          where: {
            key: token.length === 64 ? { equals: token } : { gte: token, lt: `${token}g` },
            action: { in: DELETE_ACTIONS },
            ...scope.where,
          },
          orderBy: [{ at: "desc" }, { id: "desc" }],
          take: MAX_RELEASES_PER_REF,
          select: {
            id: true,
            at: true,
            actor: true,
            actorRole: true,
            action: true,
            key: true,
            tenant: true,
            reason: true,
            before: true,
          },
        }),
      ),
    ),
    findTrimmedRefs(
      db,
      scope,
      tokens.map((t) => t.slice(0, 12)),
    ),
  ]);
  const runs =
    trims.length > 0
      ? await db.auditLog.findMany({
          where: { id: { in: [...new Set(trims.map((t) => t.auditId))] } },
          select: { id: true, at: true, actor: true, action: true, evidence: true },
        })
      : [];
  const runById = new Map(runs.map((r) => [r.id, r]));

  const fates = new Map<string, RefFates>();
  tokens.forEach((token, i) => {
    const released = (releases[i] ?? []).map((entry): ReleasedRef => {
      const masked =
        entry.before === null ? { value: null, redactedPaths: [] } : redactJson(entry.before, options.redact);
      return {
        auditId: entry.id.toString(),
        at: entry.at.toISOString(),
        actor: entry.actor,
        actorRole: entry.actorRole,
        action: entry.action,
        forced: entry.action === "record.force_release",
        repeatAllowed: entry.action === ALLOW_REPEAT_ACTION,
        key: entry.key ?? token,
        tenant: entry.tenant,
        reason: entry.reason,
        snapshot: masked.value,
        redactedPaths: masked.redactedPaths,
      };
    });
    const trimmed = trims
      .filter((t) => t.ref === token.slice(0, 12))
      .flatMap((t): TrimmedRef[] => {
        const run = runById.get(t.auditId);
        if (!run) return [];
        const evidence = (run.evidence ?? {}) as { runId?: unknown; cutoff?: unknown; olderThan?: unknown };
        return [
          {
            auditId: run.id.toString(),
            runId: typeof evidence.runId === "string" ? evidence.runId : null,
            at: run.at.toISOString(),
            actor: run.actor,
            action: run.action,
            tenant: t.tenant,
            cutoff: typeof evidence.cutoff === "string" ? evidence.cutoff : null,
            olderThan: typeof evidence.olderThan === "string" ? evidence.olderThan : null,
            matchedOn: "ref",
            auditVisible: scope.tenants === null,
          },
        ];
      });
    fates.set(token, {
      fate:
        released.length > 0
          ? released[0]!.repeatAllowed
            ? "repeat_allowed"
            : "released"
          : trimmed.length > 0
            ? "trimmed"
            : "never_seen",
      released,
      trimmed,
    });
  });
  return fates;
}

/** How far back a trim is known: older trims leave no trace a lookup can find. */
export const TRIM_RECORD_DAYS = TRIMMED_REF_HORIZON_DAYS;
