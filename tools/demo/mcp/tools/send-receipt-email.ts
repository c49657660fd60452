import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { argumentsJsonOf, withIdempotency } from "idem-guard";
import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";
import { crashIfAsked } from "@/tools/demo/mcp/simulated-crash";
import { sleep } from "@/tools/demo/upstream/sleep";
import { guardToolResult } from "@/tools/demo/mcp/tool-result";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export const sendReceiptEmailInput = {
  charge_id: z.string().min(1).max(200),
  email: z.string().min(3).max(320),
};

/**
 * Keyed through the guard with a real business key (the charge id) instead of the time bucket:
 * one receipt per charge, whenever it is asked for. The charge id alone names the operation, so a
 * second receipt for it to another address is refused (arguments_mismatch), not sent. Yet it
 * publishes no annotations at all, so a host treats it as unsafe to retry — the console's "keyed
 * but not claimed" case.
 */
export async function sendReceiptEmail(
  deps: ToolDeps,
  caller: DemoCaller,
  args: { charge_id: string; email: string },
): Promise<CallToolResult> {
  const guarded = withIdempotency(
    {
      db: deps.db,
      tool: "send_receipt_email",
      statusTool: "get_charge_status",
      noun: "A receipt email",
      upstream: "mail service",
      clock: caller.clock,
      businessKey: (value) => (value as { charge_id?: string }).charge_id,
      argumentsInKey: false,
    },
    async ({ key }) => {
      crashIfAsked(caller, "before", "send_receipt_email", "mail service");
      if (caller.latencyMs) await sleep(caller.latencyMs);
      const email = deps.outbox.send({ to: args.email, chargeId: args.charge_id, key, at: caller.clock() });
      crashIfAsked(caller, "after", "send_receipt_email", "mail service");
      return { status: "sent", ...email };
    },
  );
  return guardToolResult(
    await guarded({
      tenant: caller.tenant,
      subject: caller.subject,
      argumentsJson: argumentsJsonOf(args),
      client: caller.client,
    }),
  );
}
