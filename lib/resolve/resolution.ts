import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { writeAudit } from "@/lib/audit/write-audit";
import type { Prisma } from "@/generated/prisma/client";
import type { ProcessorCheck } from "./processor-check-types";
import { ROW_VERSION_SQL } from "@/lib/records/visible-records";

export type ResolveAction = "complete" | "release";

/** The row as the audit log keeps it (release deletes it: this snapshot is all that remains). */
export type RowSnapshot = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  response: unknown;
  createdAt: string;
  updatedAt: string | null;
  version: string | null;
};

export type Decision =
  | { ok: true; action: ResolveAction; response?: unknown; forced: boolean }
  | { ok: false; code: "forbidden" | "outcome_mismatch" | "outcome_unknown"; message: string };

/**
 * What the processor's answer allows: complete only what it says was taken (with its receipt),
 * release only what it says was not taken. An admin may force a release without that evidence;
 * nothing may complete without it, since the stored response is what every repeat receives.
 */
export function decideResolution(actor: Actor, action: ResolveAction, check: ProcessorCheck, force: boolean): Decision {
  if (action === "complete") {
    if (!can(actor.role, "records:resolve"))
      return { ok: false, code: "forbidden", message: `Your role (${actor.role}) may not complete claims.` };
    if (check.outcome === "taken") return { ok: true, action, response: check.receipt ?? null, forced: false };
    return check.outcome === "unknown"
      ? {
          ok: false,
          code: "outcome_unknown",
          message: `The processor's answer is unknown (${check.reason}); nothing was changed.`,
        }
      : {
          ok: false,
          code: "outcome_mismatch",
          message: `The processor says this was not taken (${check.reason}): release the claim instead.`,
        };
  }
  if (!can(actor.role, "records:release"))
    return { ok: false, code: "forbidden", message: `Your role (${actor.role}) may not release claims.` };
  if (check.outcome === "not_taken") return { ok: true, action, forced: false };
  if (!force) {
    return check.outcome === "unknown"
      ? {
          ok: false,
          code: "outcome_unknown",
          message: `The processor's answer is unknown (${check.reason}); releasing now could allow a second charge. Nothing was changed.`,
        }
      : {
          ok: false,
          code: "outcome_mismatch",
          message: `The processor says this was taken (${check.reason}): complete the claim with its receipt instead.`,
        };
  }
  if (!can(actor.role, "records:force-release")) {
    return {
      ok: false,
      code: "forbidden",
      message: `Releasing without "not taken" evidence needs an admin (your role: ${actor.role}).`,
    };
  }
  return { ok: true, action, forced: true };
}

type SnapshotRow = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  response: unknown;
  created_at: Date;
  updated_at: Date | null;
  version: string | null;
};

function toSnapshot(row: SnapshotRow): RowSnapshot {
  return {
    key: row.key,
    tenant: row.tenant,
    subject: row.subject,
    tool: row.tool,
    status: row.status,
    response: row.response,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at?.toISOString() ?? null,
    version: row.version,
  };
}

export type ApplyResult =
  | { ok: true; before: RowSnapshot; after: RowSnapshot | null; auditId: bigint }
  | { ok: false; code: "conflict"; current: RowSnapshot | null };

const SNAPSHOT_SELECT = `key, tenant, subject, tool, status, response, created_at, updated_at, ${ROW_VERSION_SQL} AS version`;

/**
 * Locks the row if it is still at `status` and the version the operator saw (the compare-and-set's
 * read half). Otherwise someone else acted (a writer, another operator, the reconciler): the
 * current row, null when it is gone, for the caller's conflict.
 */
export async function lockAtVersion(
  tx: Prisma.TransactionClient,
  input: { key: string; status: "in_progress" | "completed"; expectedVersion: string | null },
): Promise<{ ok: true; before: RowSnapshot } | { ok: false; code: "conflict"; current: RowSnapshot | null }> {
  const [before] = await tx.$queryRawUnsafe<SnapshotRow[]>(
    `SELECT ${SNAPSHOT_SELECT} FROM idempotency WHERE key = $1 AND status = $2
       AND ${ROW_VERSION_SQL} IS NOT DISTINCT FROM $3 FOR UPDATE`,
    input.key,
    input.status,
    input.expectedVersion,
  );
  if (before) return { ok: true, before: toSnapshot(before) };
  const [current] = await tx.$queryRawUnsafe<SnapshotRow[]>(
    `SELECT ${SNAPSHOT_SELECT} FROM idempotency WHERE key = $1`,
    input.key,
  );
  return { ok: false, code: "conflict", current: current ? toSnapshot(current) : null };
}

/**
 * Deletes a row locked by lockAtVersion and writes its audit row, with the full snapshot, in the
 * caller's transaction: a release and an allowed repeat both end a key this way. Deleting, not
 * marking: a writer that finds any row treats it as taken (docs/architecture.md#states).
 */
export async function deleteWithSnapshot(
  tx: Prisma.TransactionClient,
  actor: Actor,
  input: { before: RowSnapshot; action: string; reason: string; evidence: unknown },
): Promise<bigint> {
  const { key, status } = input.before;
  await tx.$executeRawUnsafe(`DELETE FROM idempotency WHERE key = $1 AND status = $2`, key, status);
  const audit = await writeAudit(tx, actor, {
    action: input.action,
    key,
    tenant: input.before.tenant,
    before: json(input.before),
    after: null,
    reason: input.reason,
    evidence: input.evidence === null ? null : json(input.evidence),
  });
  return audit.id;
}

/**
 * The compare-and-set, inside the caller's transaction, with its audit row in the same one:
 * the row changes only if it is still in_progress at the version the operator saw. Zero rows
 * means someone else acted (a writer completed it, another operator, the reconciler): nothing
 * is overwritten and the current state is returned.
 */
export async function applyResolution(
  tx: Prisma.TransactionClient,
  actor: Actor,
  input: {
    key: string;
    expectedVersion: string | null;
    decision: Extract<Decision, { ok: true }>;
    reason: string;
    check: ProcessorCheck;
  },
): Promise<ApplyResult> {
  const locked = await lockAtVersion(tx, {
    key: input.key,
    status: "in_progress",
    expectedVersion: input.expectedVersion,
  });
  if (!locked.ok) return locked;
  const { before } = locked;
  if (input.decision.action === "release") {
    const action = input.decision.forced ? "record.force_release" : "record.release";
    const auditId = await deleteWithSnapshot(tx, actor, {
      before,
      action,
      reason: input.reason,
      evidence: input.check,
    });
    return { ok: true, before, after: null, auditId };
  }
  const [row] = await tx.$queryRawUnsafe<SnapshotRow[]>(
    `UPDATE idempotency SET status = 'completed', response = $2::jsonb, updated_at = now()
     WHERE key = $1 AND status = 'in_progress' RETURNING ${SNAPSHOT_SELECT}`,
    input.key,
    JSON.stringify(input.decision.response ?? null),
  );
  const after = row ? toSnapshot(row) : null;
  const audit = await writeAudit(tx, actor, {
    action: "record.complete",
    key: input.key,
    tenant: before.tenant,
    before: json(before),
    after: after ? json(after) : null,
    reason: input.reason,
    evidence: json(input.check),
  });
  return { ok: true, before, after, auditId: audit.id };
}

function json(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}
