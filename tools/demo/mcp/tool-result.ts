import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GuardResult } from "idem-guard";
import { DEMO_META } from "@/tools/demo/mcp/demo-caller";

export type DemoOutcome = GuardResult<unknown>["outcome"] | "performed" | "answered" | "declined" | "error";

/**
 * `_meta` on a result says what happened behind it. A host must not need it (a replay looks like
 * the first answer on purpose); the demo's traffic generator counts outcomes with it.
 */
function meta(outcome: DemoOutcome, ref?: string): CallToolResult["_meta"] {
  return ref === undefined ? { [DEMO_META.outcome]: outcome } : { [DEMO_META.outcome]: outcome, "idem.demo/ref": ref };
}

export function jsonResult(value: unknown, outcome: DemoOutcome, ref?: string, isError = false): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: "text", text: JSON.stringify(value) }],
    _meta: meta(outcome, ref),
  };
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    result.structuredContent = value as Record<string, unknown>;
  if (isError) result.isError = true;
  return result;
}

export function errorResult(text: string, outcome: DemoOutcome, ref?: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true, _meta: meta(outcome, ref) };
}

/** A stored response of a refused operation (a declined card) replays as the error it was. */
function isRefusal(response: unknown): boolean {
  return (response as { status?: unknown } | null)?.status === "failed";
}

/** The guard's verdict as the caller sees it: the response, or its message (packages/guard/src/messages.ts). */
export function guardToolResult(result: GuardResult<unknown>): CallToolResult {
  switch (result.outcome) {
    case "executed":
    case "replayed":
      return jsonResult(result.response, result.outcome, result.ref, isRefusal(result.response));
    case "in_flight":
    case "outcome_unknown":
    case "arguments_mismatch":
      return errorResult(result.message, result.outcome, result.ref);
  }
}
