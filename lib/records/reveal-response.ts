import "server-only";
import { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { writeAudit } from "@/lib/audit/write-audit";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { refOf } from "idem-guard";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { redactJson, redactionOf } from "@/lib/privacy/redact";
import { auditReasonSchema } from "@/lib/field-rules/audit-reason";
import type { DomainFailure } from "@/lib/errors/error-codes";

export const revealInputSchema = z.strictObject({
  reason: auditReasonSchema,
});

export type RevealResult =
  | { ok: true; key: string; ref: string; response: unknown; revealedPaths: string[]; auditId: string }
  | DomainFailure<"forbidden" | "not_found">;

/**
 * Shows one record's stored response without masking, to operators and admins, with a reason.
 * The read and its `record.reveal` audit row are one transaction: nobody sees unmasked data that
 * the audit log does not record. Only the paths that were masked are named in the audit row,
 * never their values.
 */
export async function revealResponse(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  key: string,
  input: z.output<typeof revealInputSchema>,
): Promise<RevealResult> {
  if (!can(actor.role, "records:reveal"))
    return { ok: false, code: "forbidden", message: `Your role (${actor.role}) may not reveal masked data.` };
  return db.$transaction(async (tx) => {
    const row = await tx.idempotency.findFirst({
      where: { key, ...actorTenantScope(actor).where },
      select: { key: true, tenant: true, response: true },
    });
    if (!row)
      return { ok: false, code: "not_found", message: "No record with this key in the tenants you can see." } as const;
    const revealedPaths = redactJson(row.response, redactionOf(config)).redactedPaths;
    const audit = await writeAudit(tx, actor, {
      action: "record.reveal",
      key: row.key,
      tenant: row.tenant,
      reason: input.reason,
      evidence: { revealedPaths },
    });
    return {
      ok: true,
      key: row.key,
      ref: refOf(row.key),
      response: row.response,
      revealedPaths,
      auditId: audit.id.toString(),
    } as const;
  });
}
