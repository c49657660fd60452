import type { EarlierRow, VerificationCheck } from "@/lib/annotations/tool-verification-types";
import type { AnswersFinding } from "./judge-answers";
import { utcSecond, type KeyWindow } from "./key-window";
import type { TableFinding } from "./judge-table";
import type { UpstreamFinding } from "./upstream-finding";
import type { VerdictLead } from "./verdict";

export type SettledFindings = { checks: VerificationCheck[]; lead: VerdictLead | null };

/**
 * The three sides read together, where one side explains another's finding, so that no verdict wrongs a
 * writer doing what the reference text says:
 * - every call answered from a row written before the run began (the same arguments in the same bucket,
 *   or a business key that exists): nothing executed, so nothing was tested — inconclusive, naming the
 *   row, until when its key holds, and what to run instead; a side effect counted during such a run is
 *   still a failure (something ran behind a replay);
 * - the tool refused every call: no row and no side effect are what a refusal looks like, not findings;
 * - the run crossed a bucket edge: by the key rule the calls after it are a new call, so findings that two
 *   keys explain (a second execution, a second row, a second side effect) test nothing either.
 */
export function settleFindings(input: {
  tool: string;
  answers: AnswersFinding;
  table: TableFinding;
  upstream: UpstreamFinding;
  keyWindow: KeyWindow;
  /** The first bucket edge inside the run (by the tool's window), null when the run sat in one bucket. */
  edge: Date | null;
}): SettledFindings {
  const { answers, table, upstream } = input;
  const plain = (check: VerificationCheck): VerificationCheck => ({
    step: check.step,
    result: check.result,
    detail: check.detail,
  });

  if (table.earlier) {
    const earlier = table.earlier;
    const sideEffects = upstream.upstream.sideEffects ?? 0;
    const upstreamCheck: VerificationCheck =
      sideEffects > 0
        ? {
            step: "upstream",
            result: "failed",
            detail: `the upstream counted ${sideEffects === 1 ? "a side effect" : `${sideEffects} side effects`} during the run although every call was answered from row ${earlier.key.slice(0, 12)}, written before it began: ${upstream.detail}`,
          }
        : {
            step: "upstream",
            result: "skipped",
            detail: `not a finding: nothing executed during the run (${upstream.detail})`,
          };
    const summary = earlierSummary(earlier, input.tool);
    return {
      checks: [
        {
          step: "answers",
          result: "inconclusive",
          detail: `every call was ${earlier.status === "completed" ? "answered from" : "told the call is in flight under"} row ${earlier.key.slice(0, 12)}, written before the run began: nothing executed`,
        },
        plain(table),
        upstreamCheck,
      ],
      lead: { step: "table", summary, hint: earlierHint(earlier, input.tool) },
    };
  }

  if (answers.rejected)
    return { checks: [plain(answers), settledWhenRejected(table), settledWhenRejected(upstream)], lead: null };

  const sides = [answers, table, upstream];
  const failed = sides.filter((s) => s.result === "failed");
  if (
    input.edge &&
    input.keyWindow.kind === "bucket" &&
    failed.length > 0 &&
    failed.every((s) => s.cause === "two_keys")
  ) {
    const edge = utcSecond(input.edge);
    const checks = sides.map((side) =>
      side.result === "failed"
        ? {
            step: side.step,
            result: "inconclusive" as const,
            detail: `not a finding: the run crossed the bucket edge at ${edge}, so the calls after it had a new key (${side.detail})`,
          }
        : plain(side),
    );
    return {
      checks,
      lead: {
        step: failed[0]!.step,
        summary: `the run crossed the end of a ${input.keyWindow.seconds} s key bucket at ${edge}: by the reference text's key rule the calls after it are a new call, so what looked like a repeat executing again tested nothing (${failed[0]!.detail})`,
        hint: `Run it again away from a bucket edge (${input.keyWindow.seconds} s buckets start on multiples of ${input.keyWindow.seconds} s since 1970). This run changes no verdict.`,
      },
    };
  }
  return { checks: sides.map(plain), lead: null };
}

function answeredFromSentence(earlier: EarlierRow): string {
  const ref = earlier.key.slice(0, 12);
  return earlier.status === "completed"
    ? `every call was answered from row ${ref}, written at ${utcSecond(earlier.createdAt)} before this run began (a replay of its stored response)`
    : `every call was told the call is in flight under row ${ref}, ${earlier.status} since ${utcSecond(earlier.createdAt)}, before this run began`;
}

/** The verdict's sentence: the earlier row, that nothing was tested, until when the key holds. */
function earlierSummary(earlier: EarlierRow, tool: string): string {
  const holds =
    earlier.keyHoldsUntil === null
      ? `the same arguments keep this key past any time bucket (${earlier.window})`
      : `the same arguments derive this key until ${utcSecond(earlier.keyHoldsUntil)}, the end of ${earlier.window}`;
  return `${answeredFromSentence(earlier)}: nothing executed, so nothing was tested, and ${tool} is neither verified nor refuted; ${holds}`;
}

/** The fix: other arguments, or after the bucket ends (never the same arguments again within it). */
function earlierHint(earlier: EarlierRow, tool: string): string {
  const stuck =
    earlier.status === "completed"
      ? ""
      : ` The row is still ${earlier.status}: if its call is over, resolve it on the Stuck page (ref ${earlier.key.slice(0, 12)}).`;
  const when =
    earlier.keyHoldsUntil === null
      ? `with other arguments (a value of ${tool}'s business key not used before): these replay row ${earlier.key.slice(0, 12)} for as long as it is kept (until it is released, or trimmed after 48 h)`
      : `with other arguments (a call not made since ${utcSecond(earlier.bucketStart ?? earlier.createdAt)}: another amount, another order id), or with these after ${utcSecond(earlier.keyHoldsUntil)}, when they derive a new key`;
  return `Run it again ${when}.${stuck} This run changes no verdict.`;
}

/**
 * When the tool refused every call, "no row" and "no side effect" are what a refusal looks like, not a
 * finding: the side is skipped. A row, or a side effect despite the refusals, is still reported as seen.
 */
function settledWhenRejected(
  side: VerificationCheck & { rows?: unknown[]; upstream?: { sideEffects: number | null } },
) {
  const check = { step: side.step, result: side.result, detail: side.detail };
  if (side.result === "passed" || side.result === "skipped") return check;
  const sawSomething = (side.rows?.length ?? 0) > 0 || (side.upstream?.sideEffects ?? 0) > 0;
  if (sawSomething) return check;
  return { ...check, result: "skipped" as const, detail: `not a finding: the tool executed no call (${side.detail})` };
}
