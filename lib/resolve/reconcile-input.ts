import { z } from "zod";
import { parseDuration } from "@/lib/config/duration";
import { BULK_PLAN_MAX_ROWS, claimKeyField } from "@/lib/resolve/bulk-plan";

const name = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\s\u0000-\u001f\u007f]+$/, "expected a name without spaces");

/** What POST /api/v1/reconcile takes: a sweep's criteria, or exactly the claims to look at. */
export const reconcileInputSchema = z.strictObject({
  filter: z
    .strictObject({
      tool: name.optional(),
      tenant: name.optional(),
      olderThan: z
        .string()
        .refine((text) => (parseDuration(text) ?? 0) > 0, "expected a positive duration like 90s, 15m or 48h")
        .transform((text) => parseDuration(text) as number)
        .optional(),
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
