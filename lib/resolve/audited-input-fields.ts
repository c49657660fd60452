import { z } from "zod";
import { REASON_MIN_LENGTH } from "@/lib/audit/audit-reason";
import { isRowVersion } from "@/lib/records/visible-records";

/** The reason every audited change of a record takes: one rule for resolve and allow-repeat. */
export const auditReasonField = z.string().trim().min(REASON_MIN_LENGTH, "say why, in a few words").max(1000);

/** The row's version as the operator saw it: the compare-and-set's expectation. */
export const expectedUpdatedAtField = z
  .string()
  .refine(
    isRowVersion,
    "expected the record's version (updated_at with microseconds, e.g. 2026-11-29T10:00:00.123456Z) or null",
  )
  .nullable();
