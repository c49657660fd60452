import type { HistoryCounts } from "@/lib/demo/traffic/history-counts";
import { runHistoryShare } from "@/lib/demo/traffic/run-history";
import type { Progress } from "@/lib/demo/traffic/run-plan";

export const DEFAULT_HISTORY_HOURS = 48;
/** About 12,000 calls over the default 48 hours: under a minute on two busy cores. */
export const DEFAULT_CALLS_PER_HOUR = 250;
export const DEFAULT_CONCURRENCY = 48;

export type GenerateOptions = {
  /** The demo MCP server's endpoint (ending /mcp). */
  mcpUrl: string;
  seed: number;
  hours?: number;
  /** The simulated "now": the history covers [end - hours, end]. */
  end: Date;
  callsPerHour?: number;
  /** Scenarios run side by side (each one's calls in order). */
  concurrency?: number;
  onProgress?: (progress: Progress) => void;
};

/**
 * Drives a planned history of tool calls through a real MCP client into the demo server (and
 * so through the idempotency guard into the table). The plan is deterministic for a seed, and
 * so are the counts: calls meant to race are planned as a race with room to spare.
 */
export async function generateDemoHistory(options: GenerateOptions): Promise<HistoryCounts> {
  const started = Date.now();
  const counts = await runHistoryShare({
    mcpUrl: options.mcpUrl,
    seed: options.seed,
    hours: options.hours ?? DEFAULT_HISTORY_HOURS,
    end: options.end,
    callsPerHour: options.callsPerHour ?? DEFAULT_CALLS_PER_HOUR,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    shard: 0,
    shards: 1,
    onProgress: options.onProgress,
  });
  counts.durationMs = Date.now() - started;
  return counts;
}
