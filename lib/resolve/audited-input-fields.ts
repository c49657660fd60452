import { z } from "zod";
import { isRowVersion } from "@/lib/records/visible-records";

/** The row's version as the operator saw it: the compare-and-set's expectation. */
export const expectedUpdatedAtField = z
  .string()
  .refine(
    isRowVersion,
    "expected the record's version (updated_at with microseconds, e.g. 2026-11-29T10:00:00.123456Z) or null",
  )
  .nullable();
