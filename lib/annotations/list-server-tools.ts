import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ListedTool } from "./annotation-types";
import type { AuditedServer } from "./audited-servers";

const CLIENT_INFO = { name: "idem-console-annotation-audit", version: "0.1.0" };
/** A server that pages forever (a cursor that never ends) is cut off here, and says so. */
export const MAX_LIST_PAGES = 50;
export const DEFAULT_LIST_TIMEOUT_MS = 10_000;

export type ServerListing =
  | { server: string; ok: true; tools: ListedTool[]; pages: number }
  | { server: string; ok: false; reason: string };

/**
 * Lists one server's tools through the real SDK client, following nextCursor. The whole attempt
 * (spawn or connect, initialize, every page) shares one deadline, so a server that never answers
 * costs at most `timeoutMs`; any failure becomes a reason, never an exception, so the other
 * servers still audit.
 */
export async function listServerTools(server: AuditedServer, timeoutMs = DEFAULT_LIST_TIMEOUT_MS): Promise<ServerListing> {
  const deadline = Date.now() + timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  const options = () => ({ signal, timeout: Math.max(1, deadline - Date.now()) });
  const stderr: string[] = [];
  const client = new Client(CLIENT_INFO);
  let stage = server.transport === "stdio" ? "start" : "connect to";
  try {
    const transport = createTransport(server, stderr);
    await client.connect(transport, options());
    stage = "list the tools of";
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 1; page <= MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, options());
      for (const tool of result.tools) {
        tools.push({ name: tool.name, ...(tool.title !== undefined ? { title: tool.title } : {}), ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}) });
      }
      if (!result.nextCursor) return { server: server.name, ok: true, tools, pages: page };
      cursor = result.nextCursor;
    }
    return { server: server.name, ok: false, reason: `still paging after ${MAX_LIST_PAGES} pages of tools/list (nextCursor never ends)` };
  } catch (error) {
    return { server: server.name, ok: false, reason: `could not ${stage} the server: ${describeListingError(error, timeoutMs, stderr)}` };
  } finally {
    await client.close().catch(() => {});
  }
}

function createTransport(server: AuditedServer, stderr: string[]): Transport {
  if (server.transport === "http") {
    return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
  }
  // stdio servers come only from idem.config.json (DESIGN §5): AuditedServer of this kind is built nowhere else.
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...server.env },
    stderr: "pipe",
  });
  // The last words of a command that exits are usually the reason it exited.
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr.push(chunk.toString("utf8"));
    if (stderr.length > 20) stderr.shift();
  });
  return transport;
}

function describeListingError(error: unknown, timeoutMs: number, stderr: string[]): string {
  const said = stderr.join("").trim().split("\n").slice(-3).join(" ").slice(0, 300);
  const tail = said ? ` (its stderr: ${said})` : "";
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `no answer within ${Math.round(timeoutMs / 1000)} s${tail}`;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return `no answer within ${Math.round(timeoutMs / 1000)} s${tail}`;
  const code = errorCode(error);
  if (code === "ECONNREFUSED") return `connection refused (ECONNREFUSED): nothing listens at that address${tail}`;
  if (code === "ENOTFOUND") return `host not found${tail}`;
  if (code === "ENOENT") return `command not found (ENOENT)${tail}`;
  if (typeof code === "string") return `network error (${code})${tail}`;
  const message = deepestMessage(error);
  return `${message.replace(/\s+/g, " ").slice(0, 300)}${tail}`;
}

/** fetch wraps the socket error (and the SDK may wrap fetch's): the errno code is a few causes down. */
function errorCode(error: unknown): unknown {
  let current = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (typeof current.code === "string") return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

/** "fetch failed" says nothing; the innermost cause ("bad port", "getaddrinfo …") usually does. */
function deepestMessage(error: unknown): string {
  const messages: string[] = [];
  let current = error as { message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (typeof current.message === "string" && current.message) messages.push(current.message);
    current = current.cause as typeof current;
  }
  return messages.length > 1 ? `${messages[0]} (${messages.at(-1)})` : (messages[0] ?? String(error));
}
