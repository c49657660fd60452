import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { argumentsJsonOf, withIdempotency } from "idem-guard";
import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";
import { crashIfAsked } from "@/tools/demo/mcp/simulated-crash";
import { guardToolResult } from "@/tools/demo/mcp/tool-result";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export const chargeCardInput = {
  card: z.string().min(1).max(200).describe("card token, e.g. c_71"),
  amount_cents: z.number().int().positive().max(100_000_000),
};

/**
 * The guarded charge_card (docs/architecture.md#the-table-contract): the key is claimed before the processor is called and is
 * passed to it as the processor's own reference; a decline is a definite outcome and is stored.
 */
export async function chargeCard(
  deps: ToolDeps,
  caller: DemoCaller,
  args: { card: string; amount_cents: number },
): Promise<CallToolResult> {
  const guarded = withIdempotency(
    {
      db: deps.db,
      tool: "charge_card",
      statusTool: "get_charge_status",
      noun: "A charge",
      upstream: "processor",
      clock: caller.clock,
    },
    async ({ key }) => {
      if (caller.holdForDuplicateMs) await deps.holds.wait(key, caller.holdForDuplicateMs);
      crashIfAsked(caller, "before", "charge_card", "processor");
      const answer = await deps.processor.charge(
        { card: args.card, amount_cents: args.amount_cents, reference: key },
        { fault: caller.fault, latencyMs: caller.latencyMs, at: caller.clock() },
      );
      crashIfAsked(caller, "after", "charge_card", "processor");
      return answer.status === "succeeded" ? answer.receipt : { status: "failed", error: answer.error, reference: key };
    },
  );
  const result = await guarded({
    tenant: caller.tenant,
    subject: caller.subject,
    argumentsJson: argumentsJsonOf(args),
    client: caller.client,
  });
  if (result.outcome === "in_flight") deps.holds.rejected(result.key);
  return guardToolResult(result);
}
