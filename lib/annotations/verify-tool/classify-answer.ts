import type { VerificationCall } from "@/lib/annotations/tool-verification-types";

/**
 * How the guard words a repeat of a call still running (packages/guard/src/messages.ts): "… is
 * already in progress (ref 3f9a1c2b7d4e). Do not submit it again; call get_charge_status with
 * this ref." Other servers say "in flight" or "in-flight"; the ref is whatever hex follows "ref".
 */
const IN_FLIGHT = /\b(?:in progress|in[ -]flight)\b/i;
const REF = /\bref(?:erence)?\b[\s:=]*\(?([0-9a-f]{8,64})\b/i;

export type RawAnswer = { isError: boolean; text: string; content: string } | { thrown: string };

/**
 * One answer's outcome. Executed and replayed look alike on purpose (a replay is the first answer
 * again), so they are told apart by content: an answer identical to the executed one is the stored
 * response; any other success is a fresh execution.
 */
export function classifyAnswer(
  answer: RawAnswer,
  executedContent: string | null,
): { outcome: VerificationCall["outcome"]; ref: string | null } {
  if ("thrown" in answer) return { outcome: "error", ref: null };
  const ref = REF.exec(answer.text)?.[1]?.toLowerCase() ?? null;
  if (IN_FLIGHT.test(answer.text) && (answer.isError || ref !== null)) return { outcome: "in_flight", ref };
  if (executedContent !== null && answer.content === executedContent) return { outcome: "replayed", ref };
  if (answer.isError) return { outcome: "error", ref };
  return { outcome: "executed", ref };
}
