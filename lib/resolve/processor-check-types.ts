/**
 * What asking a processor "what happened to reference R?" produced (docs/architecture.md#states). The outcome is
 * what an operator may act on; the evidence is what was asked and answered, kept raw so a person
 * (and the audit log, once Complete/Release use it) can see why the console concluded what it did.
 */
export type ProcessorOutcome = "taken" | "not_taken" | "unknown";

export type ProcessorEvidence = {
  adapter: "http" | "mcp-tool" | "none";
  /** What was asked: method and URL, or server, tool and arguments. Header values are never kept (they may be secrets). */
  request: Record<string, unknown>;
  /** The HTTP status, "ok" / "isError" for an MCP tool result, or null when nothing answered. */
  status: number | string | null;
  /** The answer, parsed as JSON when it was JSON. */
  body?: unknown;
  /** Why no usable answer arrived (timeout, refused connection, ...). */
  error?: string;
  ms: number;
};

export type ProcessorCheck = {
  outcome: ProcessorOutcome;
  /** One sentence a person can act on: "the processor has no operation with this reference". */
  reason: string;
  /** The processor's record of the operation, when it says it was taken: the response to complete the row with. */
  receipt?: unknown;
  evidence: ProcessorEvidence;
  checkedAt: string;
};

/** The row fields an adapter needs: the key is the processor's own reference (the writer passed it). */
export type CheckableRow = { key: string; tool: string | null };

export const DEFAULT_PROCESSOR_TIMEOUT_MS = 5_000;

export function elapsedSince(startedMs: number): number {
  return Math.round(performance.now() - startedMs);
}
