import { Agent, request as httpRequest, type ClientRequest } from "node:http";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * A fetch for the MCP client transport over node:http with a keep-alive agent. The demo's
 * traffic is tens of thousands of calls, and the built-in fetch spends several times the CPU
 * per request; this keeps the history's run time inside the budget. Plain http only (loopback).
 */
export function createNodeHttpFetch(): FetchLike & { close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  // The transport passes one signal to every request: listen once per signal, not once per request.
  const inFlight = new WeakMap<AbortSignal, Set<ClientRequest>>();
  const track = (signal: AbortSignal | undefined, outgoing: ClientRequest): (() => void) => {
    if (!signal) return () => {};
    let set = inFlight.get(signal);
    if (!set) {
      const created = new Set<ClientRequest>();
      inFlight.set(signal, created);
      signal.addEventListener("abort", () => {
        for (const request of created) request.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
      }, { once: true });
      set = created;
    }
    set.add(outgoing);
    return () => set.delete(outgoing);
  };

  const fetchLike = (input: string | URL, init: RequestInit = {}): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== "http:") return reject(new TypeError(`node-http-fetch: only http: URLs (got ${url.protocol})`));
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const body = typeof init.body === "string" ? init.body : undefined;
      if (init.body != null && body === undefined) return reject(new TypeError("node-http-fetch: only string bodies"));
      if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));

      const outgoing = httpRequest({ agent, hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: init.method ?? "GET", headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", fail);
        incoming.on("end", () => {
          untrack();
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
          }
          const status = incoming.statusCode ?? 500;
          const noBody = status === 204 || status === 304 || chunks.length === 0;
          resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
        });
      });
      const untrack = track(signal, outgoing);
      function fail(error: unknown) {
        untrack();
        reject(error);
      }
      outgoing.on("error", fail);
      outgoing.end(body);
    });

  return Object.assign(fetchLike, { close: () => agent.destroy() });
}
