import type { Queryable } from "idem-guard";
import type { CarrierClient } from "@/tools/demo/mcp/carrier-client";
import type { DemoOutbox } from "@/tools/demo/mcp/demo-outbox";
import type { DuplicateHolds } from "@/tools/demo/mcp/duplicate-holds";
import type { ProcessorClient } from "@/tools/demo/mcp/processor-client";
import type { ShopFaultState } from "@/tools/demo/mcp/shop-faults";

/** What every demo tool handler may use; one set per server, shared by all requests. */
export type ToolDeps = {
  db: Queryable;
  processor: ProcessorClient;
  carrier: CarrierClient;
  outbox: DemoOutbox;
  holds: DuplicateHolds;
  faults: ShopFaultState;
};
