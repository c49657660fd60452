import type { HistoryCounts } from "@/lib/demo/traffic/history-counts";
import { planHistory } from "@/lib/demo/traffic/plan-history";
import { runHistoryShare } from "@/lib/demo/traffic/run-history";
import { runHistoryInWorkers } from "@/lib/demo/traffic/run-history-workers";
import type { Progress } from "@/lib/demo/traffic/run-plan";

export const DEFAULT_HISTORY_HOURS = 48;
/** About 20,000 calls over the default 48 hours: well under a minute on two cores. */
export const DEFAULT_CALLS_PER_HOUR = 420;
export const DEFAULT_CONCURRENCY = 48;
/** MCP clients in child processes; the server stays in this one. One is enough for two cores. */
export const DEFAULT_HISTORY_WORKERS = 1;

export type GenerateOptions = {
  /** The demo MCP server's endpoint (ending /mcp). */
  mcpUrl: string;
  seed: number;
  hours?: number;
  /** The simulated "now": the history covers [end - hours, end]. */
  end: Date;
  callsPerHour?: number;
  /** Scenarios run side by side (each one's calls in order), per client. */
  concurrency?: number;
  /** Child processes driving the MCP clients; 0 runs the client in this process. */
  workers?: number;
  onProgress?: (progress: Progress) => void;
};

/**
 * Drives a planned history of tool calls through real MCP clients into the demo server (and
 * so through the idempotency guard into the table). The plan is deterministic for a seed, and
 * so are the counts: calls meant to race are planned as a race with room to spare.
 */
export async function generateDemoHistory(options: GenerateOptions): Promise<HistoryCounts> {
  const started = Date.now();
  const workers = options.workers ?? DEFAULT_HISTORY_WORKERS;
  const share = {
    mcpUrl: options.mcpUrl,
    seed: options.seed,
    hours: options.hours ?? DEFAULT_HISTORY_HOURS,
    callsPerHour: options.callsPerHour ?? DEFAULT_CALLS_PER_HOUR,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
  };
  let counts: HistoryCounts;
  if (workers <= 0) {
    counts = await runHistoryShare({ ...share, end: options.end, shard: 0, shards: 1, onProgress: options.onProgress });
  } else {
    const total = planHistory({ ...share, end: options.end }).reduce((n, s) => n + s.steps.reduce((m, step) => m + step.length, 0), 0);
    // Each worker runs `concurrency` scenarios at once: split it so the total stays the same.
    const perWorker = { ...share, concurrency: Math.max(1, Math.ceil(share.concurrency / workers)), end: options.end.toISOString() };
    counts = await runHistoryInWorkers(perWorker, { workers, total, onProgress: options.onProgress });
  }
  counts.durationMs = Date.now() - started;
  return counts;
}
