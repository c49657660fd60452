/**
 * Child-process entry: runs one share of a planned history through its own copy of the shop —
 * an MCP client and the shop's McpServer joined in memory, the guard writing through its own
 * connection pool — against the parent's processor and carrier. Several workers use several
 * cores; the parent only serves the upstreams.
 */
import pg from "pg";
import { createDemoToolDeps } from "../mcp/demo-tool-deps";
import { connectInMemoryShop } from "../mcp/in-memory-shop";
import type { HistoryWorkerMessage, HistoryWorkerRequest } from "./history-worker-protocol";
import { runHistoryShare } from "./run-history";

function send(message: HistoryWorkerMessage): void {
  process.send?.(message);
}

async function run(request: HistoryWorkerRequest): Promise<void> {
  // Six connections keep a worker's calls moving; the embedded database takes 16 in all, shared
  // with the console and the launcher.
  const pool = new pg.Pool({ connectionString: request.databaseUrl, max: 6 });
  const deps = createDemoToolDeps({ db: pool, processorUrl: request.processorUrl, carrierUrl: request.carrierUrl });
  const shop = await connectInMemoryShop(deps);
  try {
    const counts = await runHistoryShare(shop.client, {
      ...request,
      end: new Date(request.end),
      onProgress: ({ done }) => send({ type: "progress", done }),
    });
    counts.receiptEmails = deps.outbox.stats().sent;
    send({ type: "done", counts });
  } finally {
    await shop.close();
    deps.close();
    await pool.end();
  }
}

process.once("message", (request: HistoryWorkerRequest) => {
  run(request)
    .catch((error: unknown) =>
      send({ type: "failed", message: error instanceof Error ? error.message : String(error) }),
    )
    .finally(() => process.disconnect?.());
});
