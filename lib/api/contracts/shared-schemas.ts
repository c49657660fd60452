import { z } from "zod";
import { ERROR_CODES } from "@/lib/errors/error-codes";

// JSON shapes more than one contract answers. Objects are closed (a new field is a contract
// change); nested parts a client treats as opaque are open (z.looseObject) or z.unknown().

/** `content-disposition` on a download: the browser saves the answer as a file of this name. */
export const attachmentHeader = {
  description: 'attachment; filename="…": save the answer as this file.',
  schema: z.string().regex(/^attachment; filename="[^"]+"$/),
  required: true,
};

export const instant = z.string().describe("An ISO 8601 instant, UTC.");
export const nullableString = z.string().nullable();

export const recordSummary = z.object({
  key: z.string(),
  ref: z.string(),
  tenant: z.string(),
  subject: nullableString,
  tool: nullableString,
  status: z.string(),
  createdAt: instant,
  updatedAt: instant.nullable(),
});

export const rowSnapshot = z.object({
  key: z.string(),
  tenant: z.string(),
  subject: nullableString,
  tool: nullableString,
  status: z.string(),
  response: z.unknown(),
  createdAt: instant,
  updatedAt: instant.nullable(),
  version: nullableString,
});

export const processorOutcome = z.enum(["taken", "not_taken", "unknown"]);

export const processorCheck = z.looseObject({
  outcome: processorOutcome,
  reason: z.string(),
  receipt: z.unknown().optional(),
  evidence: z.unknown(),
});

/** `{error: {code, message, ...details}}`: the one error shape, its code from the closed set. */
export function errorBody(codes: readonly (typeof ERROR_CODES)[number][] = ERROR_CODES) {
  return z.object({
    error: z.looseObject({
      code: z.enum(codes as [(typeof ERROR_CODES)[number], ...(typeof ERROR_CODES)[number][]]),
      message: z.string(),
    }),
  });
}

/** After a resolve: the oldest stuck claim the caller can see, offered as the next one to clear (null: none left). */
export const nextStuckClaim = z
  .object({ key: z.string(), ref: z.string(), tenant: z.string(), tool: nullableString, createdAt: instant })
  .nullable()
  .describe("The oldest stuck claim the caller can see after this, or null when none is left.");
