/** idem-guard/mcp: the guard in front of an MCP SDK tool (`registerIdempotentTool`). */
export {
  registerIdempotentTool,
  type IdempotentCall,
  type IdempotentToolConfig,
  type ToolExtra,
} from "./register-idempotent-tool.ts";
export { clientOf } from "./client-of.ts";
export { GUARD_META, toolResultOf } from "./tool-result.ts";
export { OutcomeUnknownError } from "../outcome-unknown-error.ts";
