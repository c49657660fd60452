import "server-only";
import { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { can } from "@/lib/auth/permissions";
import type { DomainFailure } from "@/lib/errors/error-codes";
import { ALLOW_REPEAT_ACTION } from "@/lib/records/ref-fate";
import { findVisibleRecord } from "@/lib/records/visible-records";
import { auditReasonSchema } from "@/lib/field-rules/audit-reason";
import { expectedUpdatedAtField } from "./audited-input-fields";
import { deleteWithSnapshot, lockAtVersion, type RowSnapshot } from "./resolution";

export const allowRepeatInputSchema = z.strictObject({
  reason: auditReasonSchema,
  expectedUpdatedAt: expectedUpdatedAtField,
});
export type AllowRepeatInput = z.infer<typeof allowRepeatInputSchema>;

export type AllowRepeatOutcome =
  | { ok: true; before: RowSnapshot; auditId: string }
  | DomainFailure<"forbidden" | "not_found" | "not_completed" | "conflict", { current?: RowSnapshot | null }>;

/**
 * Ends a completed record's deduplication so a customer can buy the same thing again: the row is
 * deleted (the next identical call claims the key afresh and runs once) with its snapshot in the
 * audit log, as a release does — a compare-and-set on the version the operator saw, audited in
 * the same transaction. The role is checked here, not only by the route.
 */
export async function allowRepeat(
  db: Db,
  actor: Actor,
  key: string,
  input: AllowRepeatInput,
): Promise<AllowRepeatOutcome> {
  if (!can(actor.role, "records:allow-repeat"))
    return { ok: false, code: "forbidden", message: `Your role (${actor.role}) may not allow a repeat.` };
  const row = await findVisibleRecord(db, actor, key);
  if (!row) return { ok: false, code: "not_found", message: "No such record (or not one of your tenants)." };
  if (row.status !== "completed") {
    return {
      ok: false,
      code: "not_completed",
      message: `The record is ${row.status}, not completed: only a completed call's deduplication can be ended (a stuck claim is resolved instead).`,
    };
  }
  const applied = await db.$transaction(async (tx) => {
    const locked = await lockAtVersion(tx, {
      key: row.key,
      status: "completed",
      expectedVersion: input.expectedUpdatedAt,
    });
    if (!locked.ok) return locked;
    const auditId = await deleteWithSnapshot(tx, actor, {
      before: locked.before,
      action: ALLOW_REPEAT_ACTION,
      reason: input.reason,
      evidence: null,
    });
    return { ok: true as const, before: locked.before, auditId };
  });
  if (!applied.ok) {
    return {
      ok: false,
      code: "conflict",
      message:
        applied.current === null
          ? "The record is gone since you looked (released, trimmed or already allowed to repeat). Nothing was changed."
          : `The record changed since you looked (now ${applied.current.status}, updated ${applied.current.updatedAt ?? "never"}). Nothing was changed.`,
      details: { current: applied.current },
    };
  }
  return { ok: true, before: applied.before, auditId: applied.auditId.toString() };
}
