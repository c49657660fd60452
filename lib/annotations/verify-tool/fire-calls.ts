import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { VerificationCall } from "@/lib/annotations/tool-verification-types";
import type { Redaction } from "@/lib/privacy/redact";
import { comparableContent, maskedAnswerText, MAX_ANSWER_TEXT, textOfResult } from "./answer-text";
import { classifyAnswer, type RawAnswer } from "./classify-answer";
import { reorderedArguments } from "./key-orders";
import type { McpSession } from "./mcp-session";

/** A call as the runner keeps it: the evidence's fields, and what the answer said, comparable. */
export type FiredCall = VerificationCall & { content: string | null };

export type CallPhases = {
  calls: FiredCall[];
  /** Why the sequential repeat was not made (null: it was). */
  sequentialSkipped: string | null;
};

/**
 * The double-call test's calls: `concurrency` calls of `tool` at once, the same arguments in
 * different key orders, then — once every one of them has answered, so the first has completed —
 * one more. A repeat that would only add another real side effect is not made: when the calls at
 * once already executed more than once, the run has its evidence.
 */
export async function fireCalls(
  session: McpSession,
  tool: string,
  args: Record<string, unknown>,
  concurrency: number,
  redaction: Redaction,
): Promise<CallPhases> {
  const orders = reorderedArguments(args, concurrency + 1);
  const call = async (index: number) => {
    const started = performance.now();
    let raw: RawAnswer;
    try {
      const result = await session.callTool(tool, orders[index]!.value);
      raw = { isError: result.isError === true, text: textOfResult(result), content: safeContent(result) };
    } catch (error) {
      raw = { thrown: session.describe(error) };
    }
    return { index, raw, ms: Math.round(performance.now() - started), finished: performance.now() };
  };

  const concurrent = await Promise.all(orders.slice(0, concurrency).map((_, i) => call(i)));
  // The first success to come back is the execution; an identical answer after it is its replay.
  const byFinish = [...concurrent].sort((a, b) => a.finished - b.finished);
  let executedContent: string | null = null;
  const classified = new Map<number, FiredCall>();
  for (const answer of byFinish) {
    const { outcome, ref } = classifyAnswer(answer.raw, executedContent);
    if (outcome === "executed" && executedContent === null && "content" in answer.raw)
      executedContent = answer.raw.content;
    classified.set(answer.index, toCall("concurrent", orders[answer.index]!.keyOrder, answer, outcome, ref, redaction));
  }
  const calls = concurrent.map((a) => classified.get(a.index)!);

  const executions = calls.filter((c) => c.outcome === "executed").length;
  if (executions > 1) {
    return {
      calls,
      sequentialSkipped: `the ${concurrency} calls at once already executed ${executions} times; a further call would only make another real side effect`,
    };
  }
  const sequential = await call(concurrency);
  const { outcome, ref } = classifyAnswer(sequential.raw, executedContent);
  calls.push(toCall("sequential", orders[concurrency]!.keyOrder, sequential, outcome, ref, redaction));
  return { calls, sequentialSkipped: null };
}

function toCall(
  phase: VerificationCall["phase"],
  keyOrder: string[],
  answer: { raw: RawAnswer; ms: number },
  outcome: VerificationCall["outcome"],
  ref: string | null,
  redaction: Redaction,
): FiredCall {
  const raw = answer.raw;
  const text = "thrown" in raw ? `the call failed: ${raw.thrown}` : maskedAnswerText(raw.text, redaction);
  return {
    phase,
    keyOrder,
    outcome,
    ref,
    isError: "thrown" in raw || raw.isError,
    text: text.length > MAX_ANSWER_TEXT ? `${text.slice(0, MAX_ANSWER_TEXT)}…` : text,
    ms: answer.ms,
    content: "thrown" in raw ? null : raw.content,
  };
}

/** An answer whose JSON the canonical form refuses (a lone surrogate, a huge number) is compared as text. */
function safeContent(result: CallToolResult): string {
  try {
    return comparableContent(result);
  } catch {
    return JSON.stringify(textOfResult(result));
  }
}
