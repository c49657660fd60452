/**
 * The double-call test's shapes (issue #18), shared by the runner (verify-tool, the Tools page's
 * "Verify…"), the table `tool_verification` and the tool audit that shows the latest run per tool.
 */

export const VERIFICATION_VERDICTS = ["verified", "failed", "inconclusive"] as const;
export type VerificationVerdict = (typeof VERIFICATION_VERDICTS)[number];

/** The three sides a run reads: what the calls answered, what the table holds, what the upstream did. */
export const VERIFICATION_STEPS = ["answers", "table", "upstream"] as const;
export type VerificationStep = (typeof VERIFICATION_STEPS)[number];

/** verify-tool's exit status: a server's CI gates a release on it. */
export const VERIFICATION_EXIT_CODES: Record<VerificationVerdict, number> = { verified: 0, failed: 1, inconclusive: 3 };

/** One call the run made, as the MCP client saw its answer. */
export type VerificationCall = {
  /** "concurrent" (one of the --concurrency calls fired at once) or "sequential" (after the first completed). */
  phase: "concurrent" | "sequential";
  /** The arguments' top-level key order this call sent (a host may re-serialise them). */
  keyOrder: string[];
  /** How the answer reads: executed (a fresh result), in_flight (names a ref, no receipt), replayed (the stored response), error. */
  outcome: "executed" | "in_flight" | "replayed" | "error";
  /** The ref the answer names, when it names one. */
  ref: string | null;
  isError: boolean;
  /** The answer's text, cut to 2,000 characters. */
  text: string;
  ms: number;
};

/** One side's finding: passed, failed (with what was seen), or not exercised / not available. */
export type VerificationCheck = {
  step: VerificationStep;
  result: "passed" | "failed" | "inconclusive" | "skipped";
  /** One sentence naming what was seen, e.g. "the carrier created 2 shipments for reference ord-17". */
  detail: string;
};

export type VerificationEvidence = {
  calls: VerificationCall[];
  checks: VerificationCheck[];
  /** The table's rows for the tool in the run's window: key, status, created_at (ISO). Response bodies are not kept. */
  rows: { key: string; status: string; createdAt: string }[];
  /** What the tool's configured adapter reported, when the tool has one (processor or carrier). */
  upstream: { adapter: string; reference: string | null; sideEffects: number | null; detail: string } | null;
  /** How to make an inconclusive run conclusive, e.g. "slow the upstream: the demo processor's latencyMs". */
  hint: string | null;
};

/** A stored run, as the tool audit, its exports and the API show it. */
export type ToolVerificationResult = {
  id: string;
  server: string;
  tool: string;
  verdict: VerificationVerdict;
  step: VerificationStep | null;
  summary: string;
  concurrency: number;
  argumentsHash: string;
  listingHash: string;
  snapshotId: string | null;
  startedAt: string;
  finishedAt: string;
  verifiedBy: string;
  evidence: VerificationEvidence;
};

/** The latest run per tool beside the traffic evidence: stale when the tool's current listing entry hashes differently. */
export type LatestVerification = ToolVerificationResult & { stale: boolean };
