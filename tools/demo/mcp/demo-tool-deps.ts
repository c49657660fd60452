import { createCarrierClient } from "@/tools/demo/mcp/carrier-client";
import { createDemoOutbox } from "@/tools/demo/mcp/demo-outbox";
import { createDuplicateHolds } from "@/tools/demo/mcp/duplicate-holds";
import { createProcessorClient } from "@/tools/demo/mcp/processor-client";
import { createShopFaults } from "@/tools/demo/mcp/shop-faults";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";
import type { Queryable } from "idem-guard";

export type DemoToolDepsOptions = {
  db: Queryable;
  processorUrl: string;
  carrierUrl: string;
  /** How long a tool waits for the processor (and carrier) before saying "outcome unknown". Default 5000 ms. */
  processorTimeoutMs?: number;
  carrierTimeoutMs?: number;
  /**
   * Demo: the wait when a call's `_meta` forces the upstream to hang (default 250 ms). Short, so
   * the history's forced timeouts cost little real time; the full deadline stays long, so a
   * busy machine does not produce timeouts nobody planned.
   */
  forcedTimeoutMs?: number;
};

/** The clients and state the shop's tools share: one set per server, whatever carries the calls. */
export function createDemoToolDeps(options: DemoToolDepsOptions): ToolDeps & { close(): void } {
  const processorTimeoutMs = options.processorTimeoutMs ?? 5000;
  const forcedTimeoutMs = options.forcedTimeoutMs ?? 250;
  const processor = createProcessorClient({
    baseUrl: options.processorUrl,
    timeoutMs: processorTimeoutMs,
    forcedTimeoutMs,
  });
  const carrier = createCarrierClient({
    baseUrl: options.carrierUrl,
    timeoutMs: options.carrierTimeoutMs ?? processorTimeoutMs,
    forcedTimeoutMs,
  });
  return {
    db: options.db,
    processor,
    carrier,
    outbox: createDemoOutbox(),
    holds: createDuplicateHolds(),
    faults: createShopFaults(),
    close() {
      processor.close();
      carrier.close();
    },
  };
}
