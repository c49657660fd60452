import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** The calling host as its initialize handshake named it ("claude-code 1.2.0"); null before one. */
export function clientOf(server: McpServer): string | null {
  const client = server.server.getClientVersion();
  if (!client) return null;
  return `${client.name} ${client.version}`.trim().slice(0, 200);
}
