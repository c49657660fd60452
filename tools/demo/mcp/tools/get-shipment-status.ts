import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";
import { jsonResult } from "@/tools/demo/mcp/tool-result";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export const getShipmentStatusInput = {
  order_id: z.string().min(1).max(200),
};

/** Every shipment the carrier holds for the order: more than one is the duplicate create_shipment made. */
export async function getShipmentStatus(
  deps: ToolDeps,
  _caller: DemoCaller,
  args: { order_id: string },
): Promise<CallToolResult> {
  const shipments = await deps.carrier.listShipments(args.order_id);
  return jsonResult({ order_id: args.order_id, count: shipments.length, shipments }, "answered");
}
