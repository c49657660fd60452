/**
 * Child-process entry: runs one share of a planned history through its own MCP client and
 * reports progress and counts to the parent over IPC. The parent keeps the demo server (and
 * so the guard and the database pool); the MCP client's CPU goes to another core.
 */
import { runHistoryShare, type ShareOptions } from "./run-history";
import type { HistoryWorkerMessage, HistoryWorkerRequest } from "./history-worker-protocol";

function send(message: HistoryWorkerMessage): void {
  process.send?.(message);
}

process.once("message", (request: HistoryWorkerRequest) => {
  const options: ShareOptions = {
    ...request,
    end: new Date(request.end),
    onProgress: ({ done }) => send({ type: "progress", done }),
  };
  runHistoryShare(options)
    .then((counts) => send({ type: "done", counts }))
    .catch((error: unknown) => send({ type: "failed", message: error instanceof Error ? error.message : String(error) }))
    .finally(() => process.disconnect?.());
});
