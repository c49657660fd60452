import { z } from "zod";
import { durationSchema } from "@/lib/config/duration";
import { typedNameWithoutSpacesSchema } from "@/lib/field-rules/names";
import { BULK_PLAN_MAX_ROWS, claimKeyField } from "@/lib/resolve/bulk-plan";

/** What POST /api/v1/reconcile takes: a sweep's criteria, or exactly the claims to look at. */
export const reconcileInputSchema = z.strictObject({
  filter: z
    .strictObject({
      tool: typedNameWithoutSpacesSchema.optional(),
      tenant: typedNameWithoutSpacesSchema.optional(),
      olderThan: durationSchema.optional(),
      keys: z.array(claimKeyField).min(1).max(BULK_PLAN_MAX_ROWS).optional(),
      limit: z.number().int().min(1).max(BULK_PLAN_MAX_ROWS).optional(),
    })
    .refine(
      (f) => f.keys === undefined || (f.tool === undefined && f.tenant === undefined && f.olderThan === undefined),
      {
        message: "keys names the claims exactly: give it alone, without tool, tenant or olderThan",
      },
    )
    .default({}),
  dryRun: z.boolean(),
});
