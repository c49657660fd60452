import type { LatestVerification, ToolVerificationResult } from "@/lib/annotations/tool-verification-types";

/** "run by admin@… at 2026-12-01 19:20 UTC (2 calls at once, then one after), failed at the table step: the carrier …" */
export function describeTestRun(run: ToolVerificationResult): string {
  const outcome =
    run.verdict === "failed"
      ? `failed${run.step ? ` at the ${run.step} step` : ""}`
      : run.verdict === "inconclusive"
        ? `inconclusive${run.step ? ` at the ${run.step} step` : ""}`
        : "verified";
  return `run by ${run.verifiedBy} at ${at(run.finishedAt)} (${run.concurrency} calls at once, then one after), ${outcome}: ${sentence(run.summary)}`;
}

/**
 * What a test that does not decide the verdict adds to its explanation: a stale run, an inconclusive
 * one, or a current one on a tool that makes no claim. Empty when the verdict already is the test's.
 */
export function verificationNote(run: LatestVerification, claims: boolean): string {
  if (run.stale)
    return `The latest double-call test (${run.verdict}, run by ${run.verifiedBy} at ${at(run.finishedAt)}) is stale: the tool's listing entry has changed since, or the tool is gone from the listing, so it says nothing about the current one. Run Verify again.`;
  if (run.verdict === "inconclusive")
    return `The latest double-call test was ${describeTestRun(run)}${run.evidence.hint ? ` ${sentence(run.evidence.hint)}` : ""}`;
  // A current verified or failed test on a tool that claims is the verdict itself; here the tool claims nothing.
  if (claims) return "";
  return run.verdict === "verified"
    ? `A double-call test found repeats safe on the current listing, so idempotentHint: true may be set: ${describeTestRun(run)}`
    : `A double-call test found a repeat not safe, so hosts must not be told to retry it: ${describeTestRun(run)}`;
}

function at(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
