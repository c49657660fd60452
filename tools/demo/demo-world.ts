import pg from "pg";
import type { Queryable } from "idem-guard";
import { startDemoMcpServer, type DemoMcpServer } from "@/tools/demo/mcp/demo-mcp-server";
import { startDemoCarrier } from "@/tools/demo/upstream/carrier-server";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";

export type DemoWorldOptions = {
  /** A pg Pool (or anything Queryable) on a migrated database; or `databaseUrl` to open one here. */
  db?: Queryable;
  databaseUrl?: string;
  host?: string;
  /** 0 (default) picks free ports. */
  processorPort?: number;
  carrierPort?: number;
  mcpPort?: number;
  /** How long the shop's tools wait for the processor before "outcome unknown" (see startDemoMcpServer). */
  processorTimeoutMs?: number;
};

/** The idem.config.json that points the console at this world (docs/architecture.md#the-demo-world). */
export type DemoConsoleConfig = {
  tools: Record<
    string,
    {
      stuckAfter: string;
      businessKey?: boolean;
      /** Searchable response fields: label → JSONPath into the stored response (issue #28). */
      search?: Record<string, string>;
      processor?: { type: "http"; baseUrl: string } | { type: "mcp-tool"; server: string; tool: string };
    }
  >;
  mcpServers: { name: string; transport: "http"; url: string; verify: boolean }[];
};

export type DemoWorld = {
  processor: DemoUpstream;
  carrier: DemoUpstream;
  mcp: DemoMcpServer;
  config: DemoConsoleConfig;
  stop(): Promise<void>;
};

export const DEMO_MCP_SERVER_NAME = "shop";

export function demoConsoleConfig(urls: { processor: string; mcp: string }): DemoConsoleConfig {
  const processor = { type: "http" as const, baseUrl: urls.processor };
  return {
    tools: {
      // What a customer quotes: the processor's charge id (ch_…, the receipt), a refund id (re_…). The
      // charge id is "receipt" on its refunds and its receipt e-mail too, so one paste finds all three.
      charge_card: { stuckAfter: "5m", processor, search: { receipt: "$.id" } },
      refund_charge: { stuckAfter: "5m", processor, search: { refund: "$.id", receipt: "$.charge_id" } },
      // The mail service has no reference look-up: its stuck rows are for an operator to judge.
      // Keyed by the charge id (a business key): one receipt per charge, however late the repeat.
      send_receipt_email: {
        stuckAfter: "5m",
        businessKey: true,
        search: { receipt: "$.charge_id", message: "$.email_id" },
      },
      // Writes no rows (it is not keyed); named so the console can ask the shop about an order.
      create_shipment: {
        stuckAfter: "10m",
        processor: { type: "mcp-tool", server: DEMO_MCP_SERVER_NAME, tool: "get_shipment_status" },
      },
    },
    // The demo world is a staging world by construction (its processor and carrier are fakes): an admin
    // may run the double-call test (verify-tool, the Tools page's "Verify…") against its shop.
    mcpServers: [{ name: DEMO_MCP_SERVER_NAME, transport: "http", url: urls.mcp, verify: true }],
  };
}

/**
 * The demo world (docs/architecture.md#the-demo-world), in this process: the payment processor, the carrier and the
 * shop's MCP server writing through the idempotency guard into the given database.
 */
export async function startDemoWorld(options: DemoWorldOptions): Promise<DemoWorld> {
  const ownPool = options.db ? undefined : new pg.Pool({ connectionString: requireUrl(options.databaseUrl), max: 20 });
  const db = options.db ?? (ownPool as Queryable);
  const host = options.host ?? "127.0.0.1";
  const started: { stop(): Promise<void> }[] = [];
  try {
    const processor = await startDemoProcessor({ host, port: options.processorPort ?? 0 });
    started.push(processor);
    const carrier = await startDemoCarrier({ host, port: options.carrierPort ?? 0 });
    started.push(carrier);
    const mcp = await startDemoMcpServer({
      host,
      port: options.mcpPort ?? 0,
      db,
      processorUrl: processor.url,
      carrierUrl: carrier.url,
      processorTimeoutMs: options.processorTimeoutMs,
    });
    started.push(mcp);
    let stopped: Promise<void> | undefined;
    return {
      processor,
      carrier,
      mcp,
      config: demoConsoleConfig({ processor: processor.url, mcp: mcp.url }),
      stop: () => (stopped ??= stopAll(started, ownPool)),
    };
  } catch (error) {
    await stopAll(started, ownPool);
    throw error;
  }
}

function requireUrl(url: string | undefined): string {
  if (!url) throw new Error("startDemoWorld: pass db or databaseUrl");
  return url;
}

async function stopAll(started: { stop(): Promise<void> }[], pool: pg.Pool | undefined): Promise<void> {
  // The MCP server first: nothing should call the upstreams while they close.
  for (const part of [...started].reverse()) await part.stop();
  await pool?.end();
}
