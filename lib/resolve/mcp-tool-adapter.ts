import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { IdemConfig, McpServerConfig } from "@/lib/config/schema";
import { refOf } from "idem-guard";
import { describeFetchError, formatSeconds } from "./http-adapter";
import { elapsedSince, type ProcessorCheck, type ProcessorEvidence } from "./processor-check-types";
import { readStatusWord } from "./status-words";

export type McpToolProcessor = Extract<NonNullable<IdemConfig["tools"][string]["processor"]>, { type: "mcp-tool" }>;

const CLIENT_INFO = { name: "idem-console", version: "0.1.0" };
/** tools/list pages to read before giving up on finding the status tool. */
const MAX_LIST_PAGES = 10;

/**
 * Calls the server's own status tool (e.g. `get_charge_status {ref}`) through a real MCP client.
 * The argument is chosen from the tool's input schema — `key` when it takes one, else `ref` —
 * so a status tool that takes neither (an order id) is reported, not called with a guess.
 * An error result, a timeout or an unreadable answer is unknown.
 */
export async function checkMcpToolProcessor(
  processor: McpToolProcessor,
  server: McpServerConfig,
  key: string,
  timeoutMs: number,
): Promise<ProcessorCheck> {
  const started = performance.now();
  const checkedAt = new Date().toISOString();
  const signal = AbortSignal.timeout(timeoutMs);
  const options = () => ({ signal, timeout: Math.max(1, timeoutMs - elapsedSince(started)) });
  const request: Record<string, unknown> = {
    server: server.name,
    transport: server.transport,
    ...(server.transport === "http" ? { url: server.url } : { command: server.command }),
    tool: processor.tool,
    timeoutMs,
  };
  const evidence = (fields: Omit<ProcessorEvidence, "adapter" | "request" | "ms">): ProcessorEvidence => ({
    adapter: "mcp-tool",
    request,
    ...fields,
    ms: elapsedSince(started),
  });
  const unknown = (reason: string, fields: Omit<ProcessorEvidence, "adapter" | "request" | "ms">): ProcessorCheck => ({
    outcome: "unknown",
    reason,
    evidence: evidence(fields),
    checkedAt,
  });

  const client = new Client(CLIENT_INFO);
  try {
    try {
      await client.connect(createTransport(server), options());
    } catch (error) {
      const why = describeMcpError(error, timeoutMs);
      return unknown(`the MCP server ${server.name} could not be reached: ${why}`, { status: null, error: why });
    }

    let tool: Tool | undefined;
    try {
      tool = await findTool(client, processor.tool, options);
    } catch (error) {
      const why = describeMcpError(error, timeoutMs);
      return unknown(`the MCP server ${server.name} did not list its tools: ${why}`, { status: null, error: why });
    }
    if (!tool)
      return unknown(`the MCP server ${server.name} lists no tool ${processor.tool}`, {
        status: null,
        error: "tool not listed",
      });

    const properties = Object.keys(tool.inputSchema.properties ?? {});
    const args = properties.includes("key") ? { key } : properties.includes("ref") ? { ref: refOf(key) } : null;
    if (!args) {
      return unknown(
        `${processor.tool} takes neither a key nor a ref (its arguments: ${properties.join(", ") || "none"}), so it cannot be asked about this record`,
        {
          status: null,
          error: "no key or ref argument",
        },
      );
    }
    request.arguments = args;

    let result: CallToolResult;
    try {
      result = (await client.callTool(
        { name: processor.tool, arguments: args },
        undefined,
        options(),
      )) as CallToolResult;
    } catch (error) {
      const why = describeMcpError(error, timeoutMs);
      return unknown(`${processor.tool} did not answer: ${why}`, { status: null, error: why });
    }
    const body = result.structuredContent ?? textOf(result);
    if (result.isError) {
      return unknown(`${processor.tool} answered with an error: ${summarise(textOf(result))}`, {
        status: "isError",
        body,
      });
    }
    return readToolAnswer(processor.tool, body, evidence({ status: "ok", body }), checkedAt);
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * A status tool may answer about the processor beside its own table (the demo's get_charge_status
 * returns the row's status and a `processor` object): the processor's word is the evidence, so it
 * is read first; the tool's own `status` only when there is no `processor` object.
 */
function readToolAnswer(
  toolName: string,
  body: unknown,
  evidence: ProcessorEvidence,
  checkedAt: string,
): ProcessorCheck {
  const answer = typeof body === "string" ? parseJson(body) : body;
  if (typeof answer !== "object" || answer === null) {
    return {
      outcome: "unknown",
      reason: `${toolName} answered something the console cannot read as a status`,
      evidence,
      checkedAt,
    };
  }
  const nested = (answer as { processor?: unknown }).processor;
  const source =
    typeof nested === "object" && nested !== null
      ? (nested as Record<string, unknown>)
      : (answer as Record<string, unknown>);
  const who = source === answer ? toolName : `the processor (through ${toolName})`;
  if ("processor" in answer && nested === null) {
    return {
      outcome: "unknown",
      reason: `${toolName} says it has nothing to ask a processor about for this record`,
      evidence,
      checkedAt,
    };
  }
  const reading = readStatusWord(source.status, who);
  return {
    outcome: reading.outcome,
    reason: reading.reason,
    ...(reading.outcome === "taken" ? { receipt: source.receipt ?? source } : {}),
    evidence,
    checkedAt,
  };
}

function createTransport(server: McpServerConfig): Transport {
  if (server.transport === "http") {
    return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
  }
  // stdio servers come only from the configuration file (docs/architecture.md#tool-servers-and-configuration): never from a request.
  return new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...server.env },
    stderr: "ignore",
  });
}

async function findTool(
  client: Client,
  name: string,
  options: () => { signal: AbortSignal; timeout: number },
): Promise<Tool | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined, options());
    const found = listed.tools.find((t) => t.name === name);
    if (found || !listed.nextCursor) return found;
    cursor = listed.nextCursor;
  }
  return undefined;
}

function textOf(result: CallToolResult): string {
  return result.content
    .filter((c): c is Extract<CallToolResult["content"][number], { type: "text" }> => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function summarise(text: string): string {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || "(no text)";
}

function describeMcpError(error: unknown, timeoutMs: number): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `no answer within ${formatSeconds(timeoutMs)}`;
  return describeFetchError(error, timeoutMs);
}
