import { z } from "zod";

export const MIN_CONCURRENCY = 2;
export const MAX_CONCURRENCY = 8;
export const DEFAULT_CONCURRENCY = 2;

/** What a verification is asked for: the API's body, the CLI's flags, the Tools page's form. */
export const verificationInputSchema = z.strictObject({
  server: z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, "expected a server name: letters, digits, _ . : - (1-100)"),
  tool: z
    .string()
    .regex(/^[^\s\u0000-\u001f\u007f]{1,200}$/, "expected a tool name without spaces or control characters (1-200)"),
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
