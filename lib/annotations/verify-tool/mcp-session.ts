import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AuditedServer } from "@/lib/annotations/audited-servers";
import { createTransport, describeListingError, MAX_LIST_PAGES } from "@/lib/annotations/list-server-tools";

const CLIENT_INFO = { name: "idem-console-verify-tool", version: "0.1.0" };

export type McpSession = {
  /** Every tool the server lists, following nextCursor (bounded). */
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Why a call or connection failed, in the console's words (a timeout, a status code, the command's stderr). */
  describe(error: unknown): string;
  close(): Promise<void>;
};

/**
 * One real MCP SDK client on the server (Streamable HTTP or stdio, as configured). The calls of a
 * verification share it: concurrent callTool requests are separate JSON-RPC requests on it (separate
 * POSTs over HTTP), as a host's retries would be.
 */
export async function openMcpSession(
  server: AuditedServer,
  fetch: typeof globalThis.fetch,
  timeoutMs: number,
): Promise<McpSession> {
  const stderr: string[] = [];
  const client = new Client(CLIENT_INFO);
  const options = () => ({ timeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
  const describe = (error: unknown) => describeListingError(error, timeoutMs, stderr);
  try {
    await client.connect(createTransport(server, stderr, { allow: [] }, fetch), options());
  } catch (error) {
    await client.close().catch(() => {});
    throw new McpSessionError(
      `could not ${server.transport === "stdio" ? "start" : "connect to"} ${server.name}: ${describe(error)}`,
    );
  }
  return {
    async listTools() {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const listed = await client.listTools(cursor ? { cursor } : undefined, options());
        tools.push(...listed.tools);
        if (!listed.nextCursor) break;
        cursor = listed.nextCursor;
      }
      return tools;
    },
    async callTool(name, args) {
      return (await client.callTool({ name, arguments: args }, undefined, options())) as CallToolResult;
    },
    describe,
    close: () => client.close().catch(() => {}),
  };
}

/** The server could not be reached or started: nothing was called. */
export class McpSessionError extends Error {}
