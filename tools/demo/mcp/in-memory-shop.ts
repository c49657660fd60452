import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { DEMO_SERVER_INFO } from "@/tools/demo/mcp/demo-mcp-server";
import { registerDemoTools } from "@/tools/demo/mcp/register-tools";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export type InMemoryShop = { client: Client; close(): Promise<void> };

/**
 * The shop's MCP server and a real MCP client joined by the SDK's in-memory transport: the same
 * McpServer, tools, guard and JSON-RPC messages as over HTTP, without HTTP. The history
 * generator drives tens of thousands of calls this way, one connection per simulated host; the
 * HTTP server (demo-mcp-server.ts) is what the console and other clients talk to.
 */
export async function connectInMemoryShop(
  deps: ToolDeps,
  clientInfo: { name: string; version: string },
): Promise<InMemoryShop> {
  const server = new McpServer(DEMO_SERVER_INFO);
  registerDemoTools(server, deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  // The handshake's name and version are what the guard writes on its events as `client`.
  const client = new Client(clientInfo);
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
