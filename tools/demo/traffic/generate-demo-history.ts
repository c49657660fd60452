import { availableParallelism } from "node:os";
import type { HistoryCounts } from "@/tools/demo/traffic/history-counts";
import { plannedCallCount } from "@/tools/demo/traffic/run-history";
import { runHistoryInWorkers } from "@/tools/demo/traffic/run-history-workers";
import type { Progress } from "@/tools/demo/traffic/run-plan";

export const DEFAULT_HISTORY_HOURS = 48;
/** About 20,000 calls over the default 48 hours: well under a minute on two cores. */
export const DEFAULT_CALLS_PER_HOUR = 420;
/** Scenarios in flight at once, over all workers. */
export const DEFAULT_CONCURRENCY = 48;

export type GenerateOptions = {
  /** The database the shop's guard writes to. */
  databaseUrl: string;
  /** The demo processor and carrier (running in this process). */
  processorUrl: string;
  carrierUrl: string;
  seed: number;
  hours?: number;
  /** The simulated "now": the history covers [end - hours, end]. */
  end: Date;
  callsPerHour?: number;
  /** Scenarios run side by side (each one's calls in order), over all workers. */
  concurrency?: number;
  /** Worker processes, each with its own MCP client, shop server and pool. Default: one per core. */
  workers?: number;
  onProgress?: (progress: Progress) => void;
};

/**
 * Drives a planned history of tool calls through real MCP clients into the shop's MCP server
 * (and so through the idempotency guard into the table). The plan is deterministic for a seed,
 * and so are the counts: calls meant to race are planned as a race with room to spare.
 */
export async function generateDemoHistory(options: GenerateOptions): Promise<HistoryCounts> {
  const started = Date.now();
  const workers = Math.max(1, options.workers ?? availableParallelism());
  const plan = {
    seed: options.seed,
    hours: options.hours ?? DEFAULT_HISTORY_HOURS,
    end: options.end,
    callsPerHour: options.callsPerHour ?? DEFAULT_CALLS_PER_HOUR,
  };
  const concurrency = Math.max(1, Math.ceil((options.concurrency ?? DEFAULT_CONCURRENCY) / workers));
  const counts = await runHistoryInWorkers(
    {
      ...plan,
      end: plan.end.toISOString(),
      concurrency,
      databaseUrl: options.databaseUrl,
      processorUrl: options.processorUrl,
      carrierUrl: options.carrierUrl,
    },
    { workers, total: plannedCallCount(plan), onProgress: options.onProgress },
  );
  counts.durationMs = Date.now() - started;
  return counts;
}
