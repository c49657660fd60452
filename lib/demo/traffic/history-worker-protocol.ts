import type { HistoryCounts } from "./history-counts";
import type { ShareOptions } from "./run-history";

/** What the parent sends a history worker: its share, with the end time as ISO text. */
export type HistoryWorkerRequest = Omit<ShareOptions, "end" | "onProgress"> & { end: string };

export type HistoryWorkerMessage = { type: "progress"; done: number } | { type: "done"; counts: HistoryCounts } | { type: "failed"; message: string };
