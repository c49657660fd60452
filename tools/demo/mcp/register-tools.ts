import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { clientOf } from "idem-guard/mcp";
import { demoCallerFromMeta } from "@/tools/demo/mcp/demo-caller";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";
import { chargeCard, chargeCardInput } from "@/tools/demo/mcp/tools/charge-card";
import { createShipment, createShipmentInput } from "@/tools/demo/mcp/tools/create-shipment";
import { getChargeStatus, getChargeStatusInput } from "@/tools/demo/mcp/tools/get-charge-status";
import { getShipmentStatus, getShipmentStatusInput } from "@/tools/demo/mcp/tools/get-shipment-status";
import { refundCharge, refundChargeInput } from "@/tools/demo/mcp/tools/refund-charge";
import { sendReceiptEmail, sendReceiptEmailInput } from "@/tools/demo/mcp/tools/send-receipt-email";

/** A side effect on someone else's system that claims "repeat me safely". */
const IDEMPOTENT_WRITE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};
const READ_ONLY: ToolAnnotations = { readOnlyHint: true };

/**
 * The annotations each tool publishes, some honest and some not (docs/architecture.md#the-demo-world):
 * - charge_card, refund_charge: idempotentHint, and the guard makes it true;
 * - create_shipment: the same hint, with nothing behind it (no key, no reference);
 * - send_receipt_email: keyed by charge id, but claims nothing (no annotations at all);
 * - the two status tools: read-only.
 */
export const DEMO_TOOL_ANNOTATIONS: Record<string, ToolAnnotations | undefined> = {
  charge_card: IDEMPOTENT_WRITE,
  refund_charge: IDEMPOTENT_WRITE,
  create_shipment: IDEMPOTENT_WRITE,
  send_receipt_email: undefined,
  get_charge_status: READ_ONLY,
  get_shipment_status: READ_ONLY,
};

type Meta = Record<string, unknown> | undefined;

export function registerDemoTools(server: McpServer, deps: ToolDeps): void {
  const callerOf = (meta: Meta) => {
    const caller = demoCallerFromMeta(meta, clientOf(server));
    // A call's own hold wins; else the shop-wide one (PATCH /_faults), e.g. for the console's Verify… run.
    return caller.holdForDuplicateMs
      ? caller
      : { ...caller, holdForDuplicateMs: deps.faults.current().holdForDuplicateMs };
  };
  server.registerTool(
    "charge_card",
    {
      description: "Charge a card. Safe to retry: a repeat within 15 minutes returns the first answer.",
      inputSchema: chargeCardInput,
      annotations: IDEMPOTENT_WRITE,
    },
    (args, extra) => chargeCard(deps, callerOf(extra._meta as Meta), args),
  );
  server.registerTool(
    "refund_charge",
    {
      description: "Refund (part of) a charge. Safe to retry: a repeat within 15 minutes returns the first answer.",
      inputSchema: refundChargeInput,
      annotations: IDEMPOTENT_WRITE,
    },
    (args, extra) => refundCharge(deps, callerOf(extra._meta as Meta), args),
  );
  server.registerTool(
    "create_shipment",
    {
      description: "Create a shipment for an order with the carrier.",
      inputSchema: createShipmentInput,
      annotations: IDEMPOTENT_WRITE,
    },
    (args, extra) => createShipment(deps, callerOf(extra._meta as Meta), args),
  );
  server.registerTool(
    "send_receipt_email",
    { description: "Email the receipt for a charge to the customer.", inputSchema: sendReceiptEmailInput },
    (args, extra) => sendReceiptEmail(deps, callerOf(extra._meta as Meta), args),
  );
  server.registerTool(
    "get_charge_status",
    {
      description: "What happened to an operation, by the ref an error message gave you.",
      inputSchema: getChargeStatusInput,
      annotations: READ_ONLY,
    },
    (args, extra) => getChargeStatus(deps, callerOf(extra._meta as Meta), args),
  );
  server.registerTool(
    "get_shipment_status",
    {
      description: "The shipments the carrier holds for an order.",
      inputSchema: getShipmentStatusInput,
      annotations: READ_ONLY,
    },
    (args, extra) => getShipmentStatus(deps, callerOf(extra._meta as Meta), args),
  );
}
