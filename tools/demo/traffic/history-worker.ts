/**
 * Child-process entry: runs one share of a planned history through its own copy of the shop —
 * an MCP client per host, each joined in memory to a McpServer of the shop, the guard writing
 * through its own connection pool — against the parent's processor and carrier. Several
 * workers use several cores; the parent only serves the upstreams.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pg from "pg";
import { createDemoToolDeps } from "../mcp/demo-tool-deps";
import { connectInMemoryShop, type InMemoryShop } from "../mcp/in-memory-shop";
import { DEMO_HOST_IDS, DEMO_HOSTS, type DemoHost } from "./demo-hosts";
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
  // A connection per host: the guard's events name each call's host by its handshake.
  const shops: InMemoryShop[] = [];
  const clients = {} as Record<DemoHost, Client>;
  for (const host of DEMO_HOST_IDS) {
    const { name, version } = DEMO_HOSTS[host];
    const shop = await connectInMemoryShop(deps, { name, version });
    shops.push(shop);
    clients[host] = shop.client;
  }
  try {
    const counts = await runHistoryShare(clients, {
      ...request,
      end: new Date(request.end),
      onProgress: ({ done }) => send({ type: "progress", done }),
    });
    counts.receiptEmails = deps.outbox.stats().sent;
    send({ type: "done", counts });
  } finally {
    for (const shop of shops) await shop.close();
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
