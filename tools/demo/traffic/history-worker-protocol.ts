import type { HistoryCounts } from "./history-counts";
import type { ShareOptions } from "./run-history";

/** What the parent sends a history worker: its share, and where the database and the upstreams are. */
export type HistoryWorkerRequest = Omit<ShareOptions, "end" | "onProgress"> & {
  end: string;
  databaseUrl: string;
  processorUrl: string;
  carrierUrl: string;
};

export type HistoryWorkerMessage =
  { type: "progress"; done: number } | { type: "done"; counts: HistoryCounts } | { type: "failed"; message: string };
