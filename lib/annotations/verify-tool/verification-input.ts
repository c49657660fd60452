import { z } from "zod";
import { nameWithoutSpacesSchema, serverNameSchema } from "@/lib/field-rules/names";

export const MIN_CONCURRENCY = 2;
export const MAX_CONCURRENCY = 8;
export const DEFAULT_CONCURRENCY = 2;

/** What a verification is asked for: the API's body, the CLI's flags, the Tools page's form. */
export const verificationInputSchema = z.strictObject({
  server: serverNameSchema,
  tool: nameWithoutSpacesSchema,
  arguments: z.record(z.string(), z.unknown(), {
    error: 'expected the tool\'s arguments as a JSON object, e.g. {"card": "c_4242", "amount_cents": 500}',
  }),
  concurrency: z
    .number({ error: `expected a whole number of calls at once from ${MIN_CONCURRENCY} to ${MAX_CONCURRENCY}` })
    .int(`expected a whole number of calls at once from ${MIN_CONCURRENCY} to ${MAX_CONCURRENCY}`)
    .min(MIN_CONCURRENCY, `at least ${MIN_CONCURRENCY} calls at once: one to execute, one to be told it is in flight`)
    .max(MAX_CONCURRENCY, `at most ${MAX_CONCURRENCY} calls at once: each may be a real side effect on staging`)
    .default(DEFAULT_CONCURRENCY),
});
export type VerificationInput = z.input<typeof verificationInputSchema>;
export type ParsedVerificationInput = z.output<typeof verificationInputSchema>;
