import {
  createUpstreamClient,
  errorMessage,
  UpstreamError,
  type UpstreamRequest,
} from "@/tools/demo/mcp/upstream-client";

/**
 * The shipping carrier. create_shipment sends no reference: the carrier then makes a new
 * shipment on every POST, which is exactly why create_shipment's idempotentHint is false in fact.
 */
export function createCarrierClient(options: { baseUrl: string; timeoutMs: number; forcedTimeoutMs?: number }) {
  const request = createUpstreamClient({
    baseUrl: options.baseUrl,
    name: "carrier",
    timeoutMs: options.timeoutMs,
    forcedTimeoutMs: options.forcedTimeoutMs,
  });

  return {
    close: () => request.close(),
    async createShipment(
      args: { order_id: string; address: string; service_level: string },
      call: Pick<UpstreamRequest, "fault" | "latencyMs" | "at"> = {},
    ) {
      const reply = await request({ method: "POST", path: "/shipments", body: args, ...call });
      if (reply.status >= 200 && reply.status < 300) return { status: "created" as const, shipment: reply.body };
      return { status: "failed" as const, error: (reply.body as { error?: unknown } | null)?.error ?? reply.body };
    },
    async listShipments(orderId: string): Promise<unknown[]> {
      const reply = await request({ method: "GET", path: `/shipments?order_id=${encodeURIComponent(orderId)}` });
      if (reply.status !== 200)
        throw new UpstreamError(
          `carrier answered ${reply.status}: ${errorMessage(reply.body) ?? "error"}`,
          reply.status,
        );
      const shipments = (reply.body as { shipments?: unknown } | null)?.shipments;
      return Array.isArray(shipments) ? shipments : [];
    },
  };
}

export type CarrierClient = ReturnType<typeof createCarrierClient>;
