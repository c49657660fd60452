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
  /**
   * The table's rows the run wrote: key, status, created_at (ISO), and the tool column as written (null: the
   * writer records none; absent in runs stored before it was kept). Response bodies are not kept.
   */
  rows: { key: string; status: string; createdAt: string; tool?: string | null }[];
  /**
   * The row, written before the run began, that answered its calls (a replay or "in flight" of an earlier call
   * with the same key): the run then tested nothing. Absent or null when every call had a new key.
   */
  earlierRow?: EarlierRow | null;
  /** What the tool's configured adapter reported, when the tool has one (processor or carrier). */
  upstream: { adapter: string; reference: string | null; sideEffects: number | null; detail: string } | null;
  /** How to make an inconclusive run conclusive, e.g. "slow the upstream: the demo processor's latencyMs". */
  hint: string | null;
};

/** An earlier row that answered a run's calls, with until when its key keeps answering the same call. */
export type EarlierRow = {
  key: string;
  status: string;
  createdAt: string;
  tool: string | null;
  /** How the row was tied to the run: the ref an in-flight answer named, or the response every call received. */
  foundBy: "ref" | "response";
  /**
   * When the same arguments derive a new key (the end of the row's time bucket, ISO), null for a business key,
   * which holds for as long as the row is kept.
   */
  keyHoldsUntil: string | null;
  /** The start of that bucket (ISO): a call not made since then has a new key. Null with keyHoldsUntil. */
  bucketStart: string | null;
  /** The writer's bucket, in words: "the default 900 s bucket (idem.config.json sets no window for charge_card)". */
  window: string;
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
