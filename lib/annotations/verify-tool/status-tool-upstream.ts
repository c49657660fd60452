import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { configServers } from "@/lib/annotations/audited-servers";
import type { IdemConfig } from "@/lib/config/schema";
import type { McpToolProcessor } from "@/lib/resolve/mcp-tool-adapter";
import { readStatusWord } from "@/lib/resolve/status-words";
import { textOfResult } from "./answer-text";
import { openMcpSession } from "./mcp-session";
import { plural, upstreamFinding, type UpstreamFinding } from "./upstream-finding";

type Answer = { ok: true; body: Record<string, unknown> } | { ok: false; reason: string };

/**
 * The mcp-tool adapter's side: the server's own status tool (get_charge_status {ref},
 * get_shipment_status {order_id}), asked about the run's call. It takes the key or the ref when
 * its input schema names one; otherwise the verified call's own arguments it names (an order id),
 * asked before and after the run, so a `count` it reports is the run's own. The answer's
 * `processor.status` (or `status`) is read with the console's status words.
 */
export function statusToolUpstream(
  processor: McpToolProcessor,
  config: IdemConfig,
  callArguments: Record<string, unknown>,
  fetchImpl: typeof fetch,
  timeoutMs: number,
) {
  const evidenceOf = (key: string | null, sideEffects: number | null) => ({
    adapter: `mcp-tool ${processor.server}/${processor.tool}`,
    reference: key,
    sideEffects,
  });
  let countBefore: number | null = null;
  let byArguments: Record<string, unknown> | null = null;

  async function ask(key: string | null): Promise<Answer & { args?: Record<string, unknown> }> {
    const server = configServers(config).find((s) => s.name === processor.server);
    if (!server) return { ok: false, reason: `the status tool's server ${processor.server} is not configured` };
    let session;
    try {
      session = await openMcpSession(server, fetchImpl, timeoutMs);
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
    try {
      const tool = (await session.listTools()).find((t) => t.name === processor.tool);
      if (!tool) return { ok: false, reason: `${processor.server} lists no tool ${processor.tool}` };
      const args = argumentsFor(tool, key, callArguments);
      if (!args.ok) return args;
      if (args.byArguments) byArguments = args.value;
      const result = await session.callTool(processor.tool, args.value);
      const text = textOfResult(result);
      if (result.isError) return { ok: false, reason: `${processor.tool} answered an error: ${text.slice(0, 200)}` };
      const body = result.structuredContent ?? parseObject(text);
      if (!body) return { ok: false, reason: `${processor.tool} answered something that is not a JSON object` };
      return { ok: true, body, args: args.value };
    } catch (error) {
      return { ok: false, reason: `${processor.tool} did not answer: ${session.describe(error)}` };
    } finally {
      await session.close();
    }
  }

  return {
    adapter: "mcp-tool",
    async baseline(): Promise<void> {
      // Only a question that needs no key can be asked before the run (there is no row yet).
      const answer = await ask(null);
      countBefore = answer.ok && typeof answer.body.count === "number" ? answer.body.count : null;
    },
    async finish(key: string | null): Promise<UpstreamFinding> {
      const answer = await ask(key);
      if (!answer.ok) return upstreamFinding("inconclusive", answer.reason, evidenceOf(key, null));
      const body = answer.body;
      const asked = Object.entries(answer.args ?? {})
        .map(([k, v]) => `${k} ${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(", ");
      if (typeof body.count === "number") {
        const during = body.count - (byArguments !== null && countBefore !== null ? countBefore : 0);
        const noun = Object.keys(body).find((k) => Array.isArray(body[k])) ?? "operations";
        const evidence = evidenceOf(key, during);
        if (during > 1)
          return upstreamFinding(
            "failed",
            `the upstream created ${plural(during, noun)} for ${asked} during the run (${processor.tool} counts them), not 1`,
            evidence,
            "two_keys",
          );
        if (during === 1)
          return upstreamFinding(
            "passed",
            `the upstream created 1 of its ${noun} for ${asked} (${processor.tool})`,
            evidence,
          );
        return upstreamFinding(
          "inconclusive",
          `${processor.tool} counts no new ${noun} for ${asked} during the run`,
          evidence,
        );
      }
      const nested = body.processor;
      const source = typeof nested === "object" && nested !== null ? (nested as Record<string, unknown>) : body;
      const reading = readStatusWord(
        source.status,
        source === body ? processor.tool : `the processor (through ${processor.tool})`,
      );
      const evidence = evidenceOf(key, null);
      if (reading.outcome === "taken") return upstreamFinding("passed", `${reading.reason} for ${asked}`, evidence);
      if (reading.outcome === "not_taken")
        return upstreamFinding(
          "failed",
          `${reading.reason} for ${asked}, yet the call answered with a result`,
          evidence,
        );
      return upstreamFinding("inconclusive", reading.reason, evidence);
    },
  };
}

/** key, else ref (from the key), else the call's own arguments the status tool names. */
function argumentsFor(
  tool: Tool,
  key: string | null,
  callArguments: Record<string, unknown>,
): { ok: true; value: Record<string, unknown>; byArguments: boolean } | { ok: false; reason: string } {
  const properties = Object.keys(tool.inputSchema.properties ?? {});
  const required = tool.inputSchema.required ?? [];
  if (properties.includes("key") || properties.includes("ref")) {
    if (key === null)
      return { ok: false, reason: `${tool.name} is asked by key or ref, and the table gave no row to take one from` };
    return { ok: true, value: properties.includes("key") ? { key } : { ref: key.slice(0, 12) }, byArguments: false };
  }
  const shared = properties.filter((p) => p in callArguments);
  if (shared.length === 0 || required.some((r) => !(r in callArguments)))
    return {
      ok: false,
      reason: `${tool.name} takes neither a key nor a ref nor the call's own arguments (it takes: ${properties.join(", ") || "nothing"})`,
    };
  return { ok: true, value: Object.fromEntries(shared.map((p) => [p, callArguments[p]])), byArguments: true };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
