import { z } from "zod";
import { REASON_MAX_LENGTH, REASON_MIN_LENGTH } from "@/lib/field-rules/reason-length";

/** The reason every audited action takes, trimmed: one rule for resolve, allow-repeat, bulk apply and reveal. */
export const auditReasonSchema = z
  .string()
  .trim()
  .min(REASON_MIN_LENGTH, `say why, in a few words (at least ${REASON_MIN_LENGTH} characters)`)
  .max(REASON_MAX_LENGTH, `at most ${REASON_MAX_LENGTH} characters`);
