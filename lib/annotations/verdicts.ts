import type { EffectiveAnnotations } from "@/lib/tool-listings/annotation-types";
import type { AnnotationReviewNote, ToolEvidence } from "@/lib/annotations/tool-audit-types";
import type { LatestVerification } from "@/lib/annotations/tool-verification-types";
import { claimsIdempotency } from "@/lib/tool-listings/effective-annotations";
import { describeTestRun, verificationNote } from "./verification-sentences";

export const VERDICT_KINDS = [
  "claim_verified_by_test",
  "claim_refuted_by_test",
  "claim_backed_by_keys",
  "claim_with_unresolved_rows",
  "claim_without_key_evidence",
  "claim_without_recent_evidence",
  "claim_reviewed_naturally_idempotent",
  "keyed_not_claimed",
  "not_claimed",
  "read_only",
  "read_only_with_records",
  "records_for_unlisted_tool",
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

/**
 * One word per verdict, the same on the row's badge and in the page's summary, so the summary is
 * a count of the badges below it and nothing else. Listed worst first: the summary's order.
 */
export const VERDICT_WORDS: Record<VerdictKind, string> = {
  claim_refuted_by_test: "refuted",
  claim_without_key_evidence: "unbacked",
  claim_with_unresolved_rows: "unresolved",
  read_only_with_records: "contradicted",
  records_for_unlisted_tool: "unlisted",
  claim_without_recent_evidence: "unconfirmed",
  keyed_not_claimed: "claimable",
  claim_backed_by_keys: "backed",
  claim_verified_by_test: "verified",
  claim_reviewed_naturally_idempotent: "reviewed",
  read_only: "as declared",
  not_claimed: "unclaimed",
};

/** good: nothing to do; danger: a host may repeat a side effect; warn: look at it; info/neutral: no defect. */
export type VerdictTone = "good" | "danger" | "warn" | "info" | "neutral";

export type Verdict = {
  kind: VerdictKind;
  /** The verdict's one word (VERDICT_WORDS): the badge and the summary both show it. */
  label: string;
  tone: VerdictTone;
  /**
   * False when rows the window does not hold could overturn the verdict's claim about the tool's
   * behaviour (no key seen may just mean never called). A verdict that only says the tool behaves
   * as declared, or that rests on rows, a listing or a review, is certain.
   */
  certain: boolean;
  explanation: string;
  /** What to change, or null when nothing needs changing. */
  fix: string | null;
};

export type VerdictInput = {
  tool: string;
  /** null: no server lists this tool (evidence only). */
  effective: EffectiveAnnotations | null;
  evidence: ToolEvidence;
  /** The newest admin review saying the operation is naturally idempotent, if any. */
  review: AnnotationReviewNote | null;
  /** "24h", "48h", "7d": named in the explanations. */
  window: string;
  /** The tool's latest double-call test (verify-tool), stale or not; null: never verified. */
  verification?: LatestVerification | null;
};

const KEY_FIX =
  "Derive a key on the server — sha256(tenant|subject|tool|canonical-json(arguments)|time-bucket), or a business key such as the order id — record it with INSERT … ON CONFLICT (key) DO NOTHING before the side effect, and pass it to the upstream as its own idempotency reference. " +
  "Or, if repeating the call truly has no additional effect (a set, not an append), record that as an admin review with the reason.";

const UNRESOLVED_FIX =
  "Resolve them on the Stuck page: ask the processor, then complete with its receipt or release the claim. A reconciliation job keeps this from recurring.";

/**
 * The verdict for one tool: what its annotations claim against what the table shows, and what the
 * double-call test proved. "The flag follows the code; it never leads it": a claim needs keys (or a
 * reviewed reason) behind it, and keys with no claim are a claim that may be made. A test on the
 * current listing outranks the traffic: a failed one refutes the claim whatever the table shows, a
 * passing one makes it "verified" (stuck claims, if any, named with their fix: they need an operator,
 * not a new hint). A stale or inconclusive test changes no verdict; its note says so. Pure, so every branch is tested.
 */
export function verdictFor(input: VerdictInput): Verdict {
  const run = input.verification ?? null;
  const current = run && !run.stale ? run : null;
  const claims = input.effective !== null && !input.effective.readOnlyHint && claimsIdempotency(input.effective);
  if (claims && current?.verdict === "failed") {
    return {
      kind: "claim_refuted_by_test",
      label: VERDICT_WORDS.claim_refuted_by_test,
      tone: "danger",
      certain: true,
      explanation: `${input.tool} claims idempotentHint: true, but the double-call test contradicts it: ${describeTestRun(current)} The table: ${describeFigures(input.evidence, input.window)}.`,
      fix: KEY_FIX,
    };
  }
  if (claims && current?.verdict === "verified") {
    // Stuck claims do not unmake the proof, but they still need an operator: named, with their fix.
    const stuck = input.evidence.stuck + input.evidence.unresolvedOutcomeUnknown > 0;
    return {
      kind: "claim_verified_by_test",
      label: VERDICT_WORDS.claim_verified_by_test,
      tone: "good",
      certain: true,
      explanation: `${input.tool} claims idempotentHint: true and the double-call test proved it on the current listing: ${describeTestRun(current)} The table: ${describeFigures(input.evidence, input.window)}.${stuck ? ` But ${describeUnresolved(input.evidence)}.` : ""}`,
      fix: stuck ? UNRESOLVED_FIX : null,
    };
  }
  const traffic = trafficVerdict(input);
  const note = run ? verificationNote(run, claims) : "";
  return note === "" ? traffic : { ...traffic, explanation: `${traffic.explanation} ${note}` };
}

/** What the table alone says of the tool's claim. */
function trafficVerdict(input: VerdictInput): Verdict {
  const { tool, effective, evidence, review, window } = input;
  const inWindow = evidence.records > 0;
  // Keys at any age: a row older than the window still shows what the writer does.
  const everKeyed = inWindow || evidence.stuck > 0 || evidence.lastSeen !== null;
  const unresolved = evidence.stuck + evidence.unresolvedOutcomeUnknown;
  const figures = describeFigures(evidence, window);

  if (effective === null) {
    return {
      kind: "records_for_unlisted_tool",
      label: VERDICT_WORDS.records_for_unlisted_tool,
      tone: "warn",
      certain: true,
      explanation: `The table holds rows for ${tool} (${figures}), but no server's listing names it: it may have been renamed or removed, or it lives on a server the console does not list.`,
      fix: "Add the server that publishes it (or upload its tools/list), or, if the tool is gone, let its rows age out once none is in progress.",
    };
  }

  if (effective.readOnlyHint) {
    if (everKeyed) {
      return {
        kind: "read_only_with_records",
        label: VERDICT_WORDS.read_only_with_records,
        tone: "warn",
        certain: true,
        explanation: `${tool} declares readOnlyHint: true, yet its writer records idempotency keys (${figures}). A read has nothing to make safe to repeat, so either the handler has a side effect — and hosts are calling it without caution — or it keys reads for nothing.`,
        fix: "If the handler changes anything, set readOnlyHint: false and keep the key. If it truly only reads, stop recording keys for it.",
      };
    }
    return {
      kind: "read_only",
      label: VERDICT_WORDS.read_only,
      tone: "neutral",
      // Nothing to contradict the declaration: a read has no key to record, and none is recorded.
      certain: true,
      explanation: `${tool} declares readOnlyHint: true and the table holds no rows for it in the last ${window}, as expected for a read; destructiveHint and idempotentHint do not apply.`,
      fix: null,
    };
  }

  if (claimsIdempotency(effective)) {
    if (unresolved > 0) {
      return {
        kind: "claim_with_unresolved_rows",
        label: VERDICT_WORDS.claim_with_unresolved_rows,
        tone: "warn",
        certain: true,
        explanation: `${tool} claims idempotentHint: true and the claim is backed by keys (${figures}), but ${describeUnresolved(evidence)}. A host retrying on the strength of the claim gets "already in progress" until each is resolved.`,
        fix: UNRESOLVED_FIX,
      };
    }
    if (inWindow) {
      return {
        kind: "claim_backed_by_keys",
        label: VERDICT_WORDS.claim_backed_by_keys,
        tone: "good",
        certain: true,
        explanation: `${tool} claims idempotentHint: true and its writer records a key before the side effect (${figures}). A host retrying on a timeout gets the first answer back, not a second side effect.`,
        fix: null,
      };
    }
    if (review) {
      return {
        kind: "claim_reviewed_naturally_idempotent",
        label: VERDICT_WORDS.claim_reviewed_naturally_idempotent,
        tone: "good",
        // It rests on the review, which the explanation names, not on rows the window lacks.
        certain: true,
        explanation: `${tool} claims idempotentHint: true with no keys in the table; reviewed by ${review.reviewedBy} on ${review.reviewedAt.slice(0, 10)}: ${review.reason}`,
        fix: null,
      };
    }
    if (evidence.lastSeen !== null) {
      return {
        kind: "claim_without_recent_evidence",
        label: VERDICT_WORDS.claim_without_recent_evidence,
        tone: "neutral",
        certain: false,
        explanation: `${tool} claims idempotentHint: true. Its writer has recorded keys (last ${evidence.lastSeen}), but none in the last ${window}: nothing in the window confirms or refutes the claim.`,
        fix: "Widen the window, or call the tool and refresh the audit.",
      };
    }
    return {
      kind: "claim_without_key_evidence",
      label: VERDICT_WORDS.claim_without_key_evidence,
      tone: "danger",
      certain: false,
      explanation: `${tool} claims idempotentHint: true, but the table holds no key for it — not in the last ${window}, not at any age. Hosts will retry it on a timeout because the annotation told them to; if its handler records no key, each retry repeats the side effect. (If the tool was simply never called, this is unproven rather than false — but the claim still has nothing behind it.)`,
      fix: KEY_FIX,
    };
  }

  if (everKeyed) {
    return {
      kind: "keyed_not_claimed",
      label: VERDICT_WORDS.keyed_not_claimed,
      tone: "info",
      certain: true,
      explanation: `${tool} does not claim idempotency (idempotentHint ${effective.idempotentHint === false ? "is false or absent" : "does not apply"}), yet its writer records a key before the side effect (${figures}). Hosts treat it cautiously although repeats are safe.`,
      fix: "idempotentHint: true may be set: the keys are the lines of code that make the claim true.",
    };
  }
  return {
    kind: "not_claimed",
    label: VERDICT_WORDS.not_claimed,
    tone: "neutral",
    // No claim and no key: exactly as declared; rows could only add an opportunity, not a defect.
    certain: true,
    explanation: `${tool} does not claim idempotency, so hosts do not retry it on a timeout; the table holds no rows for it in the last ${window}.`,
    fix: null,
  };
}

function describeFigures(evidence: ToolEvidence, window: string): string {
  const parts = [`${plural(evidence.records, "row", "rows")} in the last ${window}`];
  if (evidence.replays > 0) parts.push(`${plural(evidence.replays, "replay", "replays")} served`);
  if (evidence.rejections > 0)
    parts.push(`${plural(evidence.rejections, "in-flight rejection", "in-flight rejections")}`);
  if (evidence.stuck > 0) parts.push(`${evidence.stuck} stuck`);
  if (evidence.records === 0 && evidence.lastSeen !== null) parts.push(`the newest at ${evidence.lastSeen}`);
  return parts.join(", ");
}

/** Only the figures that are not zero: "1 claim is stuck in_progress", not "… and 0 rows still await …". */
function describeUnresolved(evidence: ToolEvidence): string {
  const parts: string[] = [];
  if (evidence.stuck > 0) parts.push(`${plural(evidence.stuck, "claim is", "claims are")} stuck in_progress`);
  if (evidence.unresolvedOutcomeUnknown > 0)
    parts.push(
      `${plural(evidence.unresolvedOutcomeUnknown, "row still awaits", "rows still await")} an outcome the processor never reported`,
    );
  return parts.join(" and ");
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
