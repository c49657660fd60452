import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { argumentsJsonOf, withIdempotency } from "idem-guard";
import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";
import { crashIfAsked } from "@/tools/demo/mcp/simulated-crash";
import { guardToolResult } from "@/tools/demo/mcp/tool-result";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export const refundChargeInput = {
  charge_id: z.string().min(1).max(200),
  amount_cents: z.number().int().positive().max(100_000_000),
};

/** Keyed like charge_card: a refund retried after a timeout must not refund twice. */
export async function refundCharge(
  deps: ToolDeps,
  caller: DemoCaller,
  args: { charge_id: string; amount_cents: number },
): Promise<CallToolResult> {
  const guarded = withIdempotency(
    {
      db: deps.db,
      tool: "refund_charge",
      statusTool: "get_charge_status",
      noun: "A refund",
      upstream: "processor",
      clock: caller.clock,
    },
    async ({ key }) => {
      crashIfAsked(caller, "before", "refund_charge", "processor");
      const answer = await deps.processor.refund(
        { charge_id: args.charge_id, amount_cents: args.amount_cents, reference: key },
        { fault: caller.fault, latencyMs: caller.latencyMs, at: caller.clock() },
      );
      crashIfAsked(caller, "after", "refund_charge", "processor");
      return answer.status === "succeeded" ? answer.receipt : { status: "failed", error: answer.error, reference: key };
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
