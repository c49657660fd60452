import "server-only";
import { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { DEFAULT_WINDOW_SECONDS, refOf } from "idem-guard";
import type { DomainFailure } from "@/lib/errors/error-codes";
import { compareArguments, type ArgumentsComparison, type Candidate } from "@/lib/records/compare-arguments";
import { MAX_WINDOW_SECONDS } from "@/lib/records/explain-key";
import { MAX_LOOKUP_TEXT_CHARS } from "@/lib/records/extract-refs";
import { RECORD_SUMMARY_SELECT, toRecordSummary, type RecordSummary } from "@/lib/records/lookup";
import { findVisibleRecord } from "@/lib/records/visible-records";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";

const argumentsText = (field: string) =>
  z
    .string({ error: `${field}: the arguments as JSON text (a string)` })
    .max(MAX_LOOKUP_TEXT_CHARS, `at most ${MAX_LOOKUP_TEXT_CHARS.toLocaleString("en")} characters`);

export const checkArgumentsInputSchema = z.strictObject({
  args: argumentsText("args").refine((text) => text.trim() !== "", "paste the arguments the customer describes"),
  window: z
    .number({ error: "whole seconds, the writer's bucket window (900 unless it was configured otherwise)" })
    .int("whole seconds")
    .min(1, "at least 1 second")
    .max(MAX_WINDOW_SECONDS, `at most ${MAX_WINDOW_SECONDS} seconds (366 days)`)
    .optional(),
  reference: argumentsText("reference")
    .nullable()
    .optional()
    .transform((text) => (text === undefined || text === null || text.trim() === "" ? null : text)),
});
export type CheckArgumentsInput = z.output<typeof checkArgumentsInputSchema>;

/** A record among the visible ones that the pasted arguments derive instead (another bucket or scheme). */
export type OtherRecord = RecordSummary & Pick<Candidate, "scheme" | "position">;

export type ArgumentsCheck = {
  key: string;
  ref: string;
  record: { tenant: string; subject: string | null; tool: string | null; createdAt: string };
  comparison: ArgumentsComparison;
  /** Records of your tenants that these arguments derive in the neighbouring buckets or under the other scheme. */
  otherRecords: OtherRecord[];
};

export type CheckArgumentsResult =
  | ({ ok: true } & ArgumentsCheck)
  | DomainFailure<"not_found">
  | DomainFailure<"bad_request", { fields: { field: string; message: string }[] }>;

/**
 * Support's "do the arguments the customer describes make this record's key?" for one record the
 * actor may see. Read-only (nothing is written, so nothing is audited — like the key explainer,
 * which derives the same keys from the same inputs). Absent and other tenants' records read the same.
 */
export async function checkRecordArguments(
  db: Db,
  actor: Actor,
  key: string,
  input: CheckArgumentsInput,
): Promise<CheckArgumentsResult> {
  const row = await findVisibleRecord(db, actor, key);
  if (!row) return { ok: false, code: "not_found", message: "No record with this key in the tenants you can see." };
  const compared = compareArguments(row, {
    args: input.args,
    windowSeconds: input.window ?? DEFAULT_WINDOW_SECONDS,
    reference: input.reference,
  });
  if (!compared.ok)
    return {
      ok: false,
      code: "bad_request",
      message: compared.error.message,
      details: { fields: [compared.error] },
    };
  const { comparison } = compared;
  const others = comparison.verdict === "cannot_check" ? [] : comparison.candidates.filter((c) => c.key !== row.key);
  const found =
    others.length === 0
      ? []
      : await db.idempotency.findMany({
          where: { key: { in: [...new Set(others.map((c) => c.key))] }, ...actorTenantScope(actor).where },
          select: RECORD_SUMMARY_SELECT,
        });
  const otherRecords = found.flatMap((r) => {
    const candidate = others.find((c) => c.key === r.key);
    return candidate ? [{ ...toRecordSummary(r), scheme: candidate.scheme, position: candidate.position }] : [];
  });
  return {
    ok: true,
    key: row.key,
    ref: refOf(row.key),
    record: { tenant: row.tenant, subject: row.subject, tool: row.tool, createdAt: row.createdAt.toISOString() },
    comparison,
    otherRecords,
  };
}
