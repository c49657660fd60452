import { z } from "zod";
import { recordedNameSchema } from "@/lib/field-rules/names";

/**
 * A Stuck page filter in a request body: a tenant and a tool (a name, "(unrecorded)", or absent or
 * null for all). A bulk plan "for all matching" is made over one; a resolve or an apply names the
 * one its caller works in, so the next stuck claim it offers is in it too.
 */
export const stuckFilterInputSchema = z.strictObject({
  tenant: recordedNameSchema.nullable().optional(),
  tool: recordedNameSchema.nullable().optional(),
});
export type StuckFilterInput = z.infer<typeof stuckFilterInputSchema>;

export const nextStuckWithinField = stuckFilterInputSchema
  .optional()
  .describe(
    "The Stuck filter the caller works in: `nextStuck` is then the oldest stuck claim within it (without it, within all the caller's tenants and tools).",
  );
