import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";
import {
  checkOutboundUrl,
  OutboundRefusedError,
  policyFetch,
  type OutboundPolicy,
} from "@/lib/security/outbound-policy";
import type { AuditedServer } from "./audited-servers";

const CLIENT_INFO = { name: "idem-console-annotation-audit", version: "0.1.0" };
/** A server that pages forever (a cursor that never ends) is cut off here, and says so. */
export const MAX_LIST_PAGES = 50;
export const DEFAULT_LIST_TIMEOUT_MS = 10_000;

export type ServerListing =
  { server: string; ok: true; tools: ListedTool[]; pages: number } | { server: string; ok: false; reason: string };

/**
 * Lists one server's tools through the real SDK client, following nextCursor. The whole attempt
 * (spawn or connect, initialize, every page) shares one deadline, so a server that never answers
 * costs at most `timeoutMs`; any failure becomes a reason, never an exception, so the other
 * servers still audit.
 */
export async function listServerTools(
  server: AuditedServer,
  timeoutMs = DEFAULT_LIST_TIMEOUT_MS,
  policy: OutboundPolicy = { allow: [] },
): Promise<ServerListing> {
  // An admin-added URL goes through the outbound policy (checked now, and again at connect time);
  // the configuration file's servers are the operator's word.
  if (server.origin === "ui") {
    const check = await checkOutboundUrl(server.url, policy);
    if (!check.ok) return { server: server.name, ok: false, reason: `refused by the outbound policy: ${check.reason}` };
  }
  const deadline = Date.now() + timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  const options = () => ({ signal, timeout: Math.max(1, deadline - Date.now()) });
  const stderr: string[] = [];
  const client = new Client(CLIENT_INFO);
  let stage = server.transport === "stdio" ? "start" : "connect to";
  try {
    const transport = createTransport(server, stderr, policy);
    await client.connect(transport, options());
    stage = "list the tools of";
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 1; page <= MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, options());
      tools.push(...result.tools.map(toListedTool));
      if (!result.nextCursor) return { server: server.name, ok: true, tools, pages: page };
      cursor = result.nextCursor;
    }
    return {
      server: server.name,
      ok: false,
      reason: `still paging after ${MAX_LIST_PAGES} pages of tools/list (nextCursor never ends)`,
    };
  } catch (error) {
    return {
      server: server.name,
      ok: false,
      reason: `could not ${stage} the server: ${describeListingError(error, timeoutMs, stderr)}`,
    };
  } finally {
    await client.close().catch(() => {});
  }
}

/** A tools/list entry as snapshots keep it: name, title, annotations (the input schema is not kept). */
export function toListedTool(tool: {
  name: string;
  title?: string;
  annotations?: object;
  inputSchema?: object;
}): ListedTool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.annotations ? { annotations: { ...tool.annotations } as Record<string, unknown> } : {}),
    ...(tool.inputSchema ? { inputSchema: { ...tool.inputSchema } as Record<string, unknown> } : {}),
  };
}

/**
 * The SDK transport for a server: Streamable HTTP (an admin-added URL through the outbound policy's
 * fetch, or the caller's own `fetch`), or the configured command over stdio, its stderr kept.
 */
export function createTransport(
  server: AuditedServer,
  stderr: string[],
  policy: OutboundPolicy,
  fetchOverride?: typeof fetch,
): Transport {
  if (server.transport === "http") {
    const fetch = fetchOverride ?? (server.origin === "ui" ? policyFetch(policy) : undefined);
    const { url, headers } = withBasicAuth(server.url, server.headers);
    return new StreamableHTTPClientTransport(url, { requestInit: { headers }, ...(fetch ? { fetch } : {}) });
  }
  // stdio servers come only from idem.config.json (docs/architecture.md#tool-servers-and-configuration): AuditedServer of this kind is built nowhere else.
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

/**
 * fetch refuses a URL with credentials in it (`http://user:pass@host/`): they become the Basic
 * Authorization header such a URL means, unless the server's headers already name one.
 */
function withBasicAuth(
  urlText: string,
  headers: Record<string, string>,
): { url: URL; headers: Record<string, string> } {
  const url = new URL(urlText);
  if (!url.username && !url.password) return { url, headers };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = "";
  url.password = "";
  const named = Object.keys(headers).some((h) => h.toLowerCase() === "authorization");
  return {
    url,
    headers: named ? headers : { ...headers, Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` },
  };
}

/**
 * A failure in the console's own words: a status code, a timeout, a refusal, a TLS or network
 * error code — never what the target answered (an HTTP body of a URL someone named could be
 * anything: a metadata document, a database's banner). A stdio command's last stderr lines are
 * kept: that command comes from the configuration file.
 */
export function describeListingError(error: unknown, timeoutMs: number, stderr: string[]): string {
  const said = stderr.join("").trim().split("\n").slice(-3).join(" ").slice(0, 300);
  const tail = said ? ` (its stderr: ${said})` : "";
  const refused = causeOf(
    error,
    (e): e is OutboundRefusedError =>
      e instanceof OutboundRefusedError || (e as { code?: unknown }).code === "EOUTBOUND",
  );
  if (refused) return (refused as Error).message;
  const http = causeOf(error, (e): e is StreamableHTTPError => e instanceof StreamableHTTPError);
  if (http && typeof http.code === "number") return `the server answered HTTP ${http.code}, not an MCP response${tail}`;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `no answer within ${Math.round(timeoutMs / 1000)} s${tail}`;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))
    return `no answer within ${Math.round(timeoutMs / 1000)} s${tail}`;
  const code = errorCode(error);
  if (code === "ECONNREFUSED") return `connection refused (ECONNREFUSED): nothing listens at that address${tail}`;
  if (code === "ENOTFOUND") return `host not found${tail}`;
  if (code === "ENOENT") return `command not found (ENOENT)${tail}`;
  if (typeof code === "string") return `network error (${code})${tail}`;
  if (said) return `the command failed${tail}`;
  const name = error instanceof Error && error.name !== "Error" ? ` (${error.name})` : "";
  return `the server's answer was not a valid MCP response${name}`;
}

/** The error itself or the first of its causes that matches. */
function causeOf<T>(error: unknown, match: (e: unknown) => e is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
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
