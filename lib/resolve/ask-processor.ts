import type { IdemConfig } from "@/lib/config/schema";
import { checkHttpProcessor } from "./http-adapter";
import { checkMcpToolProcessor } from "./mcp-tool-adapter";
import { DEFAULT_PROCESSOR_TIMEOUT_MS, type CheckableRow, type ProcessorCheck } from "./processor-check-types";

/**
 * Asks the processor behind the row's tool what happened to the row's key. Read-only: it changes
 * nothing anywhere, so every role that can see the record may run it. Never throws for an
 * unreachable or misbehaving processor: that is an "unknown" outcome with its evidence.
 */
export async function askProcessor(config: IdemConfig, row: CheckableRow): Promise<ProcessorCheck> {
  const processor = row.tool === null ? undefined : config.tools[row.tool]?.processor;
  if (row.tool === null || !processor) {
    const reason =
      row.tool === null
        ? "the writer did not record which tool made this claim, so there is no processor to ask"
        : `no processor configured for tool ${row.tool}`;
    return {
      outcome: "unknown",
      reason,
      evidence: { adapter: "none", request: { tool: row.tool }, status: null, error: reason, ms: 0 },
      checkedAt: new Date().toISOString(),
    };
  }
  const timeoutMs = processor.timeout ?? DEFAULT_PROCESSOR_TIMEOUT_MS;
  if (processor.type === "http") return checkHttpProcessor(processor, row.key, timeoutMs);
  // The config schema already refuses a processor naming no configured server; this keeps the type honest.
  const server = config.mcpServers.find((s) => s.name === processor.server);
  if (!server) {
    const reason = `tool ${row.tool} names MCP server ${processor.server}, which is not configured`;
    return {
      outcome: "unknown",
      reason,
      evidence: {
        adapter: "mcp-tool",
        request: { server: processor.server, tool: processor.tool },
        status: null,
        error: reason,
        ms: 0,
      },
      checkedAt: new Date().toISOString(),
    };
  }
  return checkMcpToolProcessor(processor, server, row.key, timeoutMs);
}
