import type {
  VerificationCheck,
  VerificationStep,
  VerificationVerdict,
} from "@/lib/annotations/tool-verification-types";

/** How to make the in-flight branch reachable: the first call must still run when the repeats arrive. */
export const SLOW_UPSTREAM_HINT =
  "Slow the upstream so the first call is still running when the repeats arrive: set the demo processor's (or carrier's) latency (PATCH {baseUrl}/_faults with {\"latencyMs\": 1500}, or start it with latencyMs), send x-demo-latency-ms: 1500 on its requests, or use its fault settings (timeoutRate, hangMs); against a real staging upstream, use its sandbox's delay setting. A server that handles one call at a time can never be caught in flight.";

export type Verdict = {
  verdict: VerificationVerdict;
  step: VerificationStep | null;
  summary: string;
  hint: string | null;
};

/**
 * failed: the first side that failed, with what it saw; inconclusive: nothing failed but a side
 * could not be exercised (no repeat was told "in flight": the runner's own evidence, never a timer);
 * verified: every side passed (an upstream with no configured adapter is skipped, not failed).
 */
export function decideVerdict(checks: VerificationCheck[]): Verdict {
  const failed = checks.find((c) => c.result === "failed");
  if (failed) return { verdict: "failed", step: failed.step, summary: failed.detail, hint: null };
  const open = checks.find((c) => c.result === "inconclusive");
  if (open)
    return {
      verdict: "inconclusive",
      step: open.step,
      summary: open.detail,
      hint: open.step === "answers" ? SLOW_UPSTREAM_HINT : null,
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
