import type { VerificationCheck, VerificationEvidence } from "@/lib/annotations/tool-verification-types";

export type UpstreamFinding = VerificationCheck & {
  upstream: NonNullable<VerificationEvidence["upstream"]>;
  /** A finding two keys for one call explain (more than one side effect: a bucket edge inside the run gives honest writers two). */
  cause?: "two_keys";
};

/** The upstream side's finding, with what the adapter reported kept as evidence. */
export function upstreamFinding(
  result: VerificationCheck["result"],
  detail: string,
  upstream: Omit<NonNullable<VerificationEvidence["upstream"]>, "detail">,
  cause?: "two_keys",
): UpstreamFinding {
  return { step: "upstream", result, detail, upstream: { ...upstream, detail }, ...(cause ? { cause } : {}) };
}

/** "1 side effect", "2 shipments". */
export function plural(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun.replace(/s$/, "") : noun}`;
}
