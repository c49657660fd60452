import { createUpstreamClient, type UpstreamRequest } from "@/tools/demo/mcp/upstream-client";

type CallOptions = Pick<UpstreamRequest, "fault" | "latencyMs" | "at">;

/** A definite answer: the processor acted (succeeded) or refused before acting (failed). */
export type ProcessorAnswer =
  { status: "succeeded"; receipt: Record<string, unknown> } | { status: "failed"; error: unknown; httpStatus: number };

export type ReferenceLookup = { found: false } | { found: true; status: string; receipt: unknown };

/**
 * The payment processor as the tools see it. Every mutation carries the idempotency key as the
 * processor's own reference, so the guarantee extends across the boundary the server does not own.
 */
export function createProcessorClient(options: { baseUrl: string; timeoutMs: number; forcedTimeoutMs?: number }) {
  const request = createUpstreamClient({
    baseUrl: options.baseUrl,
    name: "processor",
    timeoutMs: options.timeoutMs,
    forcedTimeoutMs: options.forcedTimeoutMs,
  });

  async function mutate(path: string, body: Record<string, unknown>, call: CallOptions): Promise<ProcessorAnswer> {
    const reply = await request({ method: "POST", path, body, ...call });
    if (reply.status >= 200 && reply.status < 300)
      return { status: "succeeded", receipt: reply.body as Record<string, unknown> };
    const error = (reply.body as { error?: unknown } | null)?.error ?? reply.body;
    return { status: "failed", error, httpStatus: reply.status };
  }

  return {
    close: () => request.close(),
    charge: (args: { card: string; amount_cents: number; reference: string }, call: CallOptions = {}) =>
      mutate("/charges", args, call),
    refund: (args: { charge_id: string; amount_cents: number; reference: string }, call: CallOptions = {}) =>
      mutate("/refunds", args, call),
    async lookUp(reference: string): Promise<ReferenceLookup> {
      const reply = await request({ method: "GET", path: `/references/${encodeURIComponent(reference)}` });
      if (reply.status === 404) return { found: false };
      const body = reply.body as { status?: unknown; receipt?: unknown } | null;
      return {
        found: true,
        status: typeof body?.status === "string" ? body.status : "unknown",
        receipt: body?.receipt ?? null,
      };
    },
  };
}

export type ProcessorClient = ReturnType<typeof createProcessorClient>;
