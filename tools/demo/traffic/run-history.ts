import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { DemoHost } from "@/tools/demo/traffic/demo-hosts";
import { emptyCounts, type HistoryCounts } from "@/tools/demo/traffic/history-counts";
import { planHistory } from "@/tools/demo/traffic/plan-history";
import { runPlan, type Progress } from "@/tools/demo/traffic/run-plan";

export type ShareOptions = {
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

/** The calls of the whole planned history (the plan is cheap and deterministic). */
export function plannedCallCount(options: Pick<ShareOptions, "seed" | "hours" | "end" | "callsPerHour">): number {
  return planHistory(options).reduce((n, s) => n + s.steps.reduce((m, step) => m + step.length, 0), 0);
}

/** Plans the whole history and runs this runner's share of it through `clients`, one MCP client per host connected to the shop. */
export async function runHistoryShare(
  clients: Record<DemoHost, Client>,
  options: ShareOptions,
): Promise<HistoryCounts> {
  const all = planHistory({
    seed: options.seed,
    hours: options.hours,
    end: options.end,
    callsPerHour: options.callsPerHour,
  });
  const scenarios = all.filter((_, index) => index % options.shards === options.shard);
  const counts = emptyCounts();
  counts.scenarios = scenarios.length;
  for (const s of scenarios) counts.scenariosByKind[s.kind] = (counts.scenariosByKind[s.kind] ?? 0) + 1;
  await runPlan(clients, scenarios, { concurrency: options.concurrency, counts, onProgress: options.onProgress });
  return counts;
}
