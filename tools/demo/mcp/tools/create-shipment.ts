import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { OutcomeUnknownError } from "idem-guard";
import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";
import { errorResult, jsonResult } from "@/tools/demo/mcp/tool-result";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export const createShipmentInput = {
  order_id: z.string().min(1).max(200),
  address: z.string().min(1).max(1000),
  service_level: z.string().min(1).max(40),
};

/**
 * A counter-example, kept on purpose: annotated idempotentHint: true, but it
 * derives no key, claims nothing and POSTs to the carrier without a reference, so every repeat
 * is a new shipment. The flag leads the code here; the console's annotation audit should say so.
 */
export async function createShipment(
  deps: ToolDeps,
  caller: DemoCaller,
  args: { order_id: string; address: string; service_level: string },
): Promise<CallToolResult> {
  try {
    const answer = await deps.carrier.createShipment(args, {
      fault: caller.fault,
      latencyMs: caller.latencyMs,
      at: caller.clock(),
    });
    if (answer.status === "created") return jsonResult(answer.shipment, "performed");
    return jsonResult({ status: "failed", error: answer.error }, "declined", undefined, true);
  } catch (error) {
    if (!(error instanceof OutcomeUnknownError)) throw error;
    // No key, no record: the caller is told the truth, and nothing can look the shipment up by ref.
    return errorResult(
      `The carrier did not answer in time. The shipment may or may not have been created; call get_shipment_status with order_id ${args.order_id}.`,
      "outcome_unknown",
    );
  }
}
