import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEMO_META } from "@/tools/demo/mcp/demo-caller";
import pLimit from "p-limit";
import { sleep } from "@/tools/demo/upstream/sleep";
import type { DemoHost } from "@/tools/demo/traffic/demo-hosts";
import { countCall, type HistoryCounts } from "@/tools/demo/traffic/history-counts";
import type { PlannedCall, Scenario, ScenarioContext } from "@/tools/demo/traffic/plan-types";

export type Progress = { done: number; total: number };

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };

function metaOf(call: PlannedCall): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [DEMO_META.tenant]: call.tenant,
    [DEMO_META.subject]: call.subject,
    [DEMO_META.at]: call.at.toISOString(),
  };
  if (call.fault) meta[DEMO_META.fault] = call.fault;
  if (call.latencyMs) meta[DEMO_META.latencyMs] = call.latencyMs;
  if (call.holdForDuplicateMs) meta[DEMO_META.holdForDuplicateMs] = call.holdForDuplicateMs;
  return meta;
}

async function runCall(
  client: Client,
  call: PlannedCall,
  context: ScenarioContext,
  counts: HistoryCounts,
): Promise<void> {
  const args = typeof call.args === "function" ? call.args(context) : call.args;
  if (!args) {
    counts.skipped += 1;
    return;
  }
  if (call.delayMs) await sleep(call.delayMs);
  let result: ToolResult;
  try {
    result = (await client.callTool({ name: call.tool, arguments: args, _meta: metaOf(call) })) as ToolResult;
  } catch (error) {
    counts.protocolErrors += 1;
    if (counts.protocolErrorSamples.length < 5)
      counts.protocolErrorSamples.push(`${call.tool}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const outcome = result._meta?.[DEMO_META.outcome];
  // A crashed handler answers with the SDK's bare error result, without the demo's _meta.
  countCall(counts, call.tool, typeof outcome === "string" ? outcome : "error");
  const ref = result._meta?.["idem.demo/ref"];
  if (typeof ref === "string") context.lastRef = ref;
  const body = result.structuredContent;
  if (call.tool === "charge_card" && !result.isError && body?.status === "succeeded" && typeof body.id === "string") {
    context.chargeId = body.id;
    if (typeof body.amount_cents === "number") context.chargeAmount = body.amount_cents;
  }
}

/**
 * Runs scenarios in start order, `concurrency` at a time, each through its host's client; inside
 * a scenario the steps run in sequence (a retry comes after the call it retries) and the calls of
 * a step together.
 */
export async function runPlan(
  clients: Record<DemoHost, Client>,
  scenarios: Scenario[],
  options: { concurrency: number; counts: HistoryCounts; onProgress?: (progress: Progress) => void },
): Promise<void> {
  const total = scenarios.reduce((n, s) => n + s.steps.reduce((m, step) => m + step.length, 0), 0);
  let done = 0;
  // p-limit starts queued scenarios in the order given: start order.
  await pLimit(Math.max(1, options.concurrency)).map(scenarios, async (scenario) => {
    const context: ScenarioContext = {};
    const client = clients[scenario.host];
    for (const step of scenario.steps) {
      await Promise.all(step.map((call) => runCall(client, call, context, options.counts)));
      done += step.length;
      options.onProgress?.({ done, total });
    }
  });
}
