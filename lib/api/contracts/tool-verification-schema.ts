import { z } from "zod";
import {
  VERIFICATION_STEPS,
  VERIFICATION_VERDICTS,
  type LatestVerification,
  type ToolVerificationResult,
} from "@/lib/annotations/tool-verification-types";
import { instant, nullableString } from "./shared-schemas";

// A stored double-call test (lib/annotations/tool-verification-types.ts) as the API answers it: the tool
// audit's rows carry the latest per tool, the verification route the run it just made.

const step = z.enum(VERIFICATION_STEPS);

const verificationCall = z.object({
  phase: z.enum(["concurrent", "sequential"]),
  keyOrder: z.array(z.string()),
  outcome: z.enum(["executed", "in_flight", "replayed", "error"]),
  ref: nullableString,
  isError: z.boolean(),
  text: z.string().describe("The answer's text, cut to 2,000 characters, masked like every stored value."),
  ms: z.number(),
});

const verificationCheck = z.object({
  step,
  result: z.enum(["passed", "failed", "inconclusive", "skipped"]),
  detail: z.string(),
});

const verificationEvidence = z.object({
  calls: z.array(verificationCall),
  checks: z.array(verificationCheck),
  rows: z.array(z.object({ key: z.string(), status: z.string(), createdAt: instant })),
  upstream: z
    .object({
      adapter: z.string(),
      reference: nullableString,
      sideEffects: z.number().nullable(),
      detail: z.string(),
    })
    .nullable(),
  hint: nullableString,
});

export const toolVerificationResultSchema = z.object({
  id: z.string(),
  server: z.string(),
  tool: z.string(),
  verdict: z.enum(VERIFICATION_VERDICTS),
  step: step.nullable().describe("failed: the first step that failed; inconclusive: the one not exercised."),
  summary: z.string(),
  concurrency: z.number().int().min(2).max(8),
  argumentsHash: z.string(),
  listingHash: z.string(),
  snapshotId: nullableString,
  startedAt: instant,
  finishedAt: instant,
  verifiedBy: z.string(),
  evidence: verificationEvidence,
}) satisfies z.ZodType<ToolVerificationResult>;

export const latestVerificationSchema = toolVerificationResultSchema
  .extend({
    stale: z
      .boolean()
      .describe("The tool's entry in its server's latest listing hashes differently from the one the run saw."),
  })
  .describe(
    "The tool's latest double-call test (verify-tool). For an actor limited to tenants, the run's rows, refs and answer texts are withheld.",
  ) satisfies z.ZodType<LatestVerification>;
