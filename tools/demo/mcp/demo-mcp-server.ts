import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { BodyTooLarge, readBody, toWebRequest, writeWebResponse } from "@/tools/demo/mcp/node-web-bridge";
import { createDemoToolDeps, type DemoToolDepsOptions } from "@/tools/demo/mcp/demo-tool-deps";
import { registerDemoTools } from "@/tools/demo/mcp/register-tools";
import type { ShopFaults, ShopFaultState } from "@/tools/demo/mcp/shop-faults";
import { errorReply, HttpError, readJsonObject, sendJson } from "@/tools/demo/upstream/json-http";

export type DemoMcpServerOptions = DemoToolDepsOptions & {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
};

export type DemoMcpServer = {
  /** e.g. "http://127.0.0.1:40123/mcp" */
  url: string;
  port: number;
  /** Receipt emails the demo mail service "sent" (its side effects). */
  emails(): { sent: number; duplicates: number };
  /** The shop-wide faults (also GET / PATCH {origin}/_faults). */
  faults(): ShopFaults;
  setFaults(partial: Partial<ShopFaults>): ShopFaults;
  stop(): Promise<void>;
};

export const DEMO_SERVER_INFO = { name: "idem-demo-shop", version: "1.0.0" };

function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** GET: the shop's faults; PATCH: changes the fields given (a bad one is refused by name and changes nothing). */
async function handleFaults(req: IncomingMessage, res: ServerResponse, faults: ShopFaultState): Promise<void> {
  try {
    if (req.method === "GET") return sendJson(res, { status: 200, body: faults.current() });
    if (req.method === "PATCH") return sendJson(res, { status: 200, body: faults.update(await readJsonObject(req)) });
    req.resume();
    sendJson(res, { ...errorReply(405, "method_not_allowed", "use GET or PATCH"), headers: { allow: "GET, PATCH" } });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    sendJson(res, errorReply(error.status, error.code, error.message));
  }
}

/**
 * The demo shop's MCP server over Streamable HTTP, stateless: every POST gets a fresh McpServer
 * and transport (the SDK forbids reusing a stateless transport), sharing one set of clients.
 * JSON responses instead of SSE: the tools answer once, and the demo's traffic is heavy. For the
 * same reason it drives the web-standard transport with a small bridge of its own rather than
 * the Node wrapper, which costs about twice the CPU per request.
 */
export async function startDemoMcpServer(options: DemoMcpServerOptions): Promise<DemoMcpServer> {
  const deps = createDemoToolDeps(options);
  // Each McpServer would build its own Ajv instance (most of a request's CPU time); one is enough.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://mcp.invalid").pathname;
    if (path === "/_faults") return handleFaults(req, res, deps.faults);
    if (path !== "/mcp") {
      req.resume();
      return sendJsonRpcError(res, 404, `no MCP endpoint at ${path}; use /mcp`);
    }
    // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
    if (req.method !== "POST") {
      req.resume();
      return sendJsonRpcError(res, 405, "Method not allowed.", { allow: "POST" });
    }
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(await readBody(req));
    } catch (error) {
      if (error instanceof BodyTooLarge) return sendJsonRpcError(res, 413, error.message, {}, -32600);
      return sendJsonRpcError(res, 400, "Parse error: the body is not JSON", {}, -32700);
    }
    const server = new McpServer(DEMO_SERVER_INFO, { jsonSchemaValidator });
    registerDemoTools(server, deps);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(toWebRequest(req), { parsedBody });
      await writeWebResponse(res, response);
    } finally {
      await transport.close();
      await server.close();
    }
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error("demo MCP server: unexpected error", error);
      sendJsonRpcError(res, 500, "Internal server error");
    });
  });
  // Keep idle sockets open longer than clients keep them: otherwise a client reusing a socket the
  // server is just closing gets "socket hang up" (the 5 s default races keep-alive agents).
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let stopped: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}/mcp`,
    port: address.port,
    emails: () => deps.outbox.stats(),
    faults: () => deps.faults.current(),
    setFaults: (partial) => deps.faults.update(partial),
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        deps.close();
        http.close(() => resolve());
        http.closeAllConnections();
      });
      return stopped;
    },
  };
}
