/**
 * idem-guard: the idempotency-key protocol for side-effecting tool handlers. Derive a key on the
 * server, claim it before the side effect, replay a stored response, report a claim in flight with
 * its ref, and leave an unknown outcome claimed for reconciliation. `idem-guard/mcp` wires it into
 * the MCP SDK's McpServer.
 */
export {
  argumentsJsonOf,
  DEFAULT_WINDOW_SECONDS,
  deriveKey,
  KEY_SCHEMES,
  KeyInputError,
  refOf,
  type DerivedKey,
  type KeyInput,
  type KeyScheme,
} from "./derive-key.ts";
export { canonicalJcs } from "./canonical-jcs.ts";
export {
  CanonicalJsonError,
  canonicalPythonJson,
  MAX_DEPTH,
  parseJsonText,
  pythonFloatRepr,
  type JsonNode,
  type ParseOptions,
} from "./canonical-python-json.ts";
export { claimOrRead, complete, type ClaimInput, type ClaimResult } from "./claim.ts";
export { appendEvent, EVENT_KINDS, type EventKind } from "./events.ts";
export { withIdempotency, type GuardConfig, type GuardedCall, type GuardResult, type HandlerContext } from "./guard.ts";
export { argumentsMismatchMessage, inFlightMessage, outcomeUnknownMessage } from "./messages.ts";
export { OutcomeUnknownError } from "./outcome-unknown-error.ts";
export type { Queryable } from "./queryable.ts";
export { REFERENCE_CLAIM, REFERENCE_COMPLETE, REFERENCE_LOOK_UP } from "./reference-statements.ts";
