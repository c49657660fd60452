import type { VerificationCheck } from "@/lib/annotations/tool-verification-types";
import type { CallPhases, FiredCall } from "./fire-calls";

export type AnswersFinding = VerificationCheck & {
  /** The ref the in-flight answers named (they must agree), null when none did. */
  ref: string | null;
  /** Every ref the in-flight answers named: the table is asked about each. */
  refs: string[];
  /** The answer the table's row must hold: the sequential repeat's, else the execution's. */
  expectedContent: string | null;
  /** Every call at once answered an error (bad arguments, a validation error): nothing was tested. */
  rejected: boolean;
  /** A finding two keys for one call explain (a bucket edge inside the run gives honest writers two). */
  cause?: "two_keys";
};

/**
 * The answers side: one execution; each repeat at once told "in flight", naming one ref; the
 * sequential repeat given the stored response. What the answers alone cannot settle is left to the
 * table and the upstream: two executions may still be one side effect (an upstream that honours its
 * own reference), and no in-flight answer means the branch was never exercised, not that it is wrong.
 */
export function judgeAnswers({ calls, sequentialSkipped }: CallPhases): AnswersFinding {
  const concurrent = calls.filter((c) => c.phase === "concurrent");
  const sequential = calls.find((c) => c.phase === "sequential") ?? null;
  const executed = concurrent.filter((c) => c.outcome === "executed");
  const inFlight = concurrent.filter((c) => c.outcome === "in_flight");
  const replayed = concurrent.filter((c) => c.outcome === "replayed");
  const refs = [...new Set(inFlight.map((c) => c.ref).filter((r): r is string => r !== null))];
  const ref = refs.length === 1 ? refs[0]! : null;
  const expectedContent = sequential?.outcome === "replayed" ? sequential.content : (executed[0]?.content ?? null);
  const finding = (
    result: VerificationCheck["result"],
    detail: string,
    rejected = false,
    cause?: "two_keys",
  ): AnswersFinding => ({
    step: "answers",
    result,
    detail,
    ref,
    refs,
    expectedContent,
    rejected,
    ...(cause ? { cause } : {}),
  });

  // The tool refused every call (its input validation, a missing field): that says nothing about its
  // idempotency, so it is no verdict against the hint — the run is inconclusive and says why, in full.
  if (concurrent.length > 0 && concurrent.every((c) => c.outcome === "error"))
    return finding(
      "inconclusive",
      `the tool answered all ${concurrent.length} calls at once with an error and executed none, so nothing was tested: ${oneLine(concurrent[0]!.text, 1_000)}`,
      true,
    );
  const errored = calls.find((c) => c.outcome === "error");
  if (errored) return finding("failed", `${callName(calls, errored)} answered an error: ${oneLine(errored.text)}`);
  const nameless = inFlight.find((c) => c.ref === null);
  if (nameless)
    return finding(
      "failed",
      `${callName(calls, nameless)} said the call is in progress but named no ref to check it by`,
    );
  if (refs.length > 1)
    return finding(
      "failed",
      `the in-flight answers named different refs (${refs.join(", ")}) for the same call`,
      false,
      "two_keys",
    );
  if (executed.length === 0) return finding("failed", `none of the ${concurrent.length} calls at once executed`);
  if (sequential && sequential.outcome !== "replayed") {
    const what =
      sequential.outcome === "in_flight"
        ? "was told the call is still in progress although the first had completed"
        : "executed again: its answer differs from the first call's, so it was not the stored response";
    return finding(
      "failed",
      `the sequential repeat ${what}`,
      false,
      sequential.outcome === "executed" ? "two_keys" : undefined,
    );
  }
  if (executed.length > 1)
    return finding(
      "inconclusive",
      `${executed.length} of the ${concurrent.length} calls at once executed and none was told the call is in flight; ${sequentialSkipped ?? "the sequential repeat was made"} (the table and the upstream settle whether the side effect happened twice)`,
    );
  if (inFlight.length === 0)
    return finding(
      "inconclusive",
      `the first call finished before the repeats arrived: all ${replayed.length} repeat${replayed.length === 1 ? "" : "s"} at once got the stored response, so the in-flight branch was never exercised`,
    );
  const rest = replayed.length > 0 ? `, ${replayed.length} got the stored response` : "";
  return finding(
    "passed",
    `1 of ${concurrent.length} calls at once executed, ${inFlight.length} ${inFlight.length === 1 ? "was" : "were"} told it is in flight (ref ${ref})${rest}; the sequential repeat returned the stored response`,
  );
}

function callName(calls: FiredCall[], call: FiredCall): string {
  return call.phase === "sequential" ? "the sequential repeat" : `call ${calls.indexOf(call) + 1} of those at once`;
}

function oneLine(text: string, max = 200): string {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max)}…` : line || "(no text)";
}
