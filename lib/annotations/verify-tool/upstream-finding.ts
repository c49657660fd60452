import type { VerificationCheck, VerificationEvidence } from "@/lib/annotations/tool-verification-types";

export type UpstreamFinding = VerificationCheck & { upstream: NonNullable<VerificationEvidence["upstream"]> };

/** The upstream side's finding, with what the adapter reported kept as evidence. */
export function upstreamFinding(
  result: VerificationCheck["result"],
  detail: string,
  upstream: Omit<NonNullable<VerificationEvidence["upstream"]>, "detail">,
): UpstreamFinding {
  return { step: "upstream", result, detail, upstream: { ...upstream, detail } };
}

/** "1 side effect", "2 shipments". */
export function plural(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun.replace(/s$/, "") : noun}`;
}
