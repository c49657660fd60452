import { Agent, request as httpRequest } from "node:http";
import { OutcomeUnknownError } from "idem-guard";
import { sleep } from "@/tools/demo/upstream/sleep";
import type { DemoFault } from "@/tools/demo/mcp/demo-caller";

/** The header the demo upstreams read to force a fault on one request. */
const FAULT_HEADER = "x-demo-fault";
/** Demo: the caller's simulated now, which the upstream stamps on its receipt (tools/demo/upstream/fault-injection.ts). */
const AT_HEADER = "x-demo-at";

export type UpstreamReply = { status: number; body: unknown };

/** The upstream answered, but not with something the handler can record (a 5xx, a non-JSON body). */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

export type UpstreamRequest = {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** Only timeout/failure reach the upstream; crashes are the handler's own business. */
  fault?: DemoFault;
  /** Demo: extra time this one request takes on the far side (the upstreams only have a global latency). */
  latencyMs?: number;
  /** Demo: when the call happens in simulated time, so the upstream's created_at is that time. */
  at?: Date;
};

class RequestTimeout extends Error {}

/**
 * A JSON client with a bounded wait. A request that times out may still have been performed,
 * so the timeout becomes OutcomeUnknownError: the guard then keeps the claim and says so.
 * node:http with a keep-alive agent rather than fetch: the demo makes tens of thousands of
 * these, and fetch costs several times the CPU per request.
 */
export function createUpstreamClient(options: {
  baseUrl: string;
  name: string;
  timeoutMs: number;
  forcedTimeoutMs?: number;
}) {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  /**
   * Demo: when the upstream is told to hang, give up after `forcedTimeoutMs` rather than the full
   * deadline, so a history with hundreds of forced timeouts does not spend minutes waiting, while
   * every other request keeps a deadline long enough that a busy machine never times out by accident.
   */
  const deadline = (req: UpstreamRequest) =>
    req.fault === "timeout"
      ? Math.min(options.forcedTimeoutMs ?? options.timeoutMs, options.timeoutMs)
      : options.timeoutMs;

  function send(req: UpstreamRequest): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
      const headers: Record<string, string | number> = { accept: "application/json" };
      if (payload !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(payload);
      }
      if (req.fault === "timeout" || req.fault === "failure") headers[FAULT_HEADER] = req.fault;
      if (req.at) headers[AT_HEADER] = req.at.toISOString();
      const outgoing = httpRequest(
        {
          agent,
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          method: req.method,
          path: `${prefix}${req.path}`,
          headers,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
          incoming.on("end", () =>
            resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
          incoming.on("error", reject);
        },
      );
      // Covers the whole exchange, not just idle time: hanging up is what a real client with a deadline does.
      const timer = setTimeout(() => outgoing.destroy(new RequestTimeout()), deadline(req));
      outgoing.on("close", () => clearTimeout(timer));
      outgoing.on("error", reject);
      outgoing.end(payload);
    });
  }

  const request = async (req: UpstreamRequest): Promise<UpstreamReply> => {
    if (req.latencyMs) await sleep(req.latencyMs);
    const started = Date.now();
    let reply: { status: number; text: string };
    try {
      reply = await send(req);
    } catch (error) {
      if (!(error instanceof RequestTimeout)) throw error;
      const waitedMs = Date.now() - started;
      // messages.ts words the wait in whole seconds; below one second "in time" reads better than "within 0 s".
      throw new OutcomeUnknownError(
        `${options.name} did not answer within ${deadline(req)} ms`,
        waitedMs >= 1000 ? waitedMs : undefined,
      );
    }
    let body: unknown;
    try {
      body = reply.text === "" ? null : JSON.parse(reply.text);
    } catch {
      throw new UpstreamError(`${options.name} answered ${reply.status} with a body that is not JSON`, reply.status);
    }
    if (reply.status >= 500) {
      throw new UpstreamError(
        `${options.name} answered ${reply.status}: ${errorMessage(body) ?? "server error"}`,
        reply.status,
      );
    }
    return { status: reply.status, body };
  };
  return Object.assign(request, { close: () => agent.destroy() });
}

export type UpstreamRequester = ReturnType<typeof createUpstreamClient>;

export function errorMessage(body: unknown): string | undefined {
  const error = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === "string" ? error.message : undefined;
}
