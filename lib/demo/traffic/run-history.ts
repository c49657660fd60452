import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { emptyCounts, type HistoryCounts } from "@/lib/demo/traffic/history-counts";
import { createNodeHttpFetch } from "@/lib/demo/traffic/node-http-fetch";
import { planHistory } from "@/lib/demo/traffic/plan-history";
import { runPlan, type Progress } from "@/lib/demo/traffic/run-plan";

export type ShareOptions = {
  mcpUrl: string;
  seed: number;
  hours: number;
  end: Date;
  callsPerHour: number;
  concurrency: number;
  /** This runner takes scenarios shard, shard + shards, …: whole scenarios, so a retry stays after its call (lets several clients share a history). */
  shard: number;
  shards: number;
  onProgress?: (progress: Progress) => void;
};

/** Plans the whole history (cheap, deterministic) and runs this runner's share of it through one MCP client. */
export async function runHistoryShare(options: ShareOptions): Promise<HistoryCounts> {
  const all = planHistory({ seed: options.seed, hours: options.hours, end: options.end, callsPerHour: options.callsPerHour });
  const scenarios = all.filter((_, index) => index % options.shards === options.shard);
  const counts = emptyCounts();
  counts.scenarios = scenarios.length;
  for (const s of scenarios) counts.scenariosByKind[s.kind] = (counts.scenariosByKind[s.kind] ?? 0) + 1;

  const fetch = createNodeHttpFetch();
  const client = new Client({ name: "idem-demo-traffic", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(options.mcpUrl), { fetch }));
  try {
    await runPlan(client, scenarios, { concurrency: options.concurrency, counts, onProgress: options.onProgress });
  } finally {
    await client.close();
    fetch.close();
  }
  return counts;
}
