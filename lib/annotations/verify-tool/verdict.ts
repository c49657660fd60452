import type {
  VerificationCheck,
  VerificationStep,
  VerificationVerdict,
} from "@/lib/annotations/tool-verification-types";

/** How to make the in-flight branch reachable: the first call must still run when the repeats arrive. */
export const SLOW_UPSTREAM_HINT =
  "Slow the upstream so the first call is still running when the repeats arrive: set the demo processor's (or carrier's) latency (PATCH {baseUrl}/_faults with {\"latencyMs\": 1500}, or start it with latencyMs), send x-demo-latency-ms: 1500 on its requests, or use its fault settings (timeoutRate, hangMs); the demo shop can also hold charge_card's claim until a repeat was turned away (PATCH {shop origin}/_faults with {\"holdForDuplicateMs\": 8000}), which wins the race on any machine; against a real staging upstream, use its sandbox's delay setting. A server that handles one call at a time can never be caught in flight.";

/** What to do when the tool refused every call: its arguments, not its idempotency, were the problem. */
export const REJECTED_ARGUMENTS_HINT =
  "Give arguments the tool accepts (its input schema is in the server's tools/list; the error above names what it refused), then run the test again. This run changes no verdict.";

/** What a run that tested nothing says instead of its first open side (settle-findings.ts): the step, the sentence, the fix. */
export type VerdictLead = { step: VerificationStep; summary: string; hint: string };

export type Verdict = {
  verdict: VerificationVerdict;
  step: VerificationStep | null;
  summary: string;
  hint: string | null;
};

/**
 * failed: the first side that failed, with what it saw; inconclusive: nothing failed but a side
 * could not be exercised (no repeat was told "in flight": the runner's own evidence, never a timer), or
 * the run tested nothing (the lead says why, and what to run instead);
 * verified: every side passed (an upstream with no configured adapter is skipped, not failed).
 */
export function decideVerdict(
  checks: VerificationCheck[],
  options: { rejectedArguments?: boolean; lead?: VerdictLead | null } = {},
): Verdict {
  const failed = checks.find((c) => c.result === "failed");
  if (failed) return { verdict: "failed", step: failed.step, summary: failed.detail, hint: null };
  // Nothing failed and the run tested nothing (an earlier row answered it, a bucket edge split it): it says so.
  if (options.lead) return { verdict: "inconclusive", ...options.lead };
  const open = checks.find((c) => c.result === "inconclusive");
  if (open)
    return {
      verdict: "inconclusive",
      step: open.step,
      summary: open.detail,
      hint: open.step !== "answers" ? null : options.rejectedArguments ? REJECTED_ARGUMENTS_HINT : SLOW_UPSTREAM_HINT,
    };
  return {
    verdict: "verified",
    step: null,
    summary: checks
      .filter((c) => c.result === "passed")
      .map((c) => c.detail)
      .join("; "),
    hint: null,
  };
}
