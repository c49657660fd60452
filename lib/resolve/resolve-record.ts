import "server-only";
import { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { findVisibleRecord } from "@/lib/records/visible-records";
import { askProcessor } from "./ask-processor";
import type { ProcessorCheck } from "./processor-check-types";
import { applyResolution, decideResolution, type RowSnapshot } from "./resolution";
import { auditReasonSchema } from "@/lib/field-rules/audit-reason";
import { expectedUpdatedAtField } from "./audited-input-fields";
import { FORCE_RELEASE_CONFIRMATION } from "./resolve-rules";
import type { DomainFailure } from "@/lib/errors/error-codes";

export { FORCE_RELEASE_CONFIRMATION };

export const resolveInputSchema = z.strictObject({
  action: z.enum(["complete", "release"]),
  reason: auditReasonSchema,
  expectedUpdatedAt: expectedUpdatedAtField,
  force: z.boolean().optional(),
  confirm: z.string().optional(),
});
export type ResolveInput = z.infer<typeof resolveInputSchema>;

export type ResolveOutcome =
  | {
      ok: true;
      action: "complete" | "release";
      forced: boolean;
      before: RowSnapshot;
      after: RowSnapshot | null;
      check: ProcessorCheck;
      auditId: string;
    }
  | DomainFailure<
      "bad_request" | "not_found" | "conflict" | "forbidden" | "outcome_unknown" | "outcome_mismatch",
      { current?: RowSnapshot | null; check?: ProcessorCheck }
    >;

/**
 * Complete or release one stuck claim: the console asks the processor itself (evidence is never
 * taken from the caller), decides what that answer allows, and applies it as a compare-and-set
 * with its audit row in one transaction.
 */
export async function resolveRecord(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  key: string,
  input: ResolveInput,
): Promise<ResolveOutcome> {
  if (input.force && input.confirm !== FORCE_RELEASE_CONFIRMATION) {
    return {
      ok: false,
      code: "bad_request",
      message: `A forced release must be confirmed by typing "${FORCE_RELEASE_CONFIRMATION}".`,
    };
  }
  if (input.force && input.action !== "release") {
    return {
      ok: false,
      code: "bad_request",
      message: "Only a release can be forced; a completion needs the processor's receipt.",
    };
  }
  const row = await findVisibleRecord(db, actor, key);
  if (!row) return { ok: false, code: "not_found", message: "No such record (or not one of your tenants)." };
  if (row.status !== "in_progress") {
    return {
      ok: false,
      code: "conflict",
      message: `The record is ${row.status}, not in_progress: nothing to resolve.`,
    };
  }
  const check = await askProcessor(config, { key: row.key, tool: row.tool });
  const decision = decideResolution(actor, input.action, check, input.force ?? false);
  if (!decision.ok) {
    return { ok: false, code: decision.code, message: decision.message, details: { check } };
  }
  const applied = await db.$transaction((tx) =>
    applyResolution(tx, actor, {
      key: row.key,
      expectedVersion: input.expectedUpdatedAt,
      decision,
      reason: input.reason,
      check,
    }),
  );
  if (!applied.ok) {
    return {
      ok: false,
      code: "conflict",
      message:
        "Someone else changed this record since you looked (a writer, another operator or the reconciler). Nothing was overwritten.",
      details: { current: applied.current, check },
    };
  }
  return {
    ok: true,
    action: decision.action,
    forced: decision.forced,
    before: applied.before,
    after: applied.after,
    check,
    auditId: applied.auditId.toString(),
  };
}
