import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GuardResult } from "../guard.ts";

/** `_meta` names for what happened behind a result; a host never needs them (the text says it all). */
export const GUARD_META = { outcome: "idem-guard/outcome", ref: "idem-guard/ref" } as const;

/**
 * The guard's verdict as an MCP tool result. The ref and the instruction travel in the text
 * content, because several agent SDKs pass only the text to the model and drop `_meta`.
 */
export function toolResultOf(result: GuardResult<unknown>, isError: (response: unknown) => boolean): CallToolResult {
  const _meta = { [GUARD_META.outcome]: result.outcome, [GUARD_META.ref]: result.ref };
  if (
    result.outcome === "in_flight" ||
    result.outcome === "outcome_unknown" ||
    result.outcome === "arguments_mismatch"
  ) {
    return { content: [{ type: "text", text: result.message }], isError: true, _meta };
  }
  const response = result.response;
  const toolResult: CallToolResult = { content: [{ type: "text", text: JSON.stringify(response ?? null) }], _meta };
  if (typeof response === "object" && response !== null && !Array.isArray(response))
    toolResult.structuredContent = response as Record<string, unknown>;
  if (isError(response)) toolResult.isError = true;
  return toolResult;
}
