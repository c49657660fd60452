import type { Queryable } from "idem-guard";
import type { CarrierClient } from "@/lib/demo/mcp/carrier-client";
import type { DemoOutbox } from "@/lib/demo/mcp/demo-outbox";
import type { DuplicateHolds } from "@/lib/demo/mcp/duplicate-holds";
import type { ProcessorClient } from "@/lib/demo/mcp/processor-client";

/** What every demo tool handler may use; one set per server, shared by all requests. */
export type ToolDeps = {
  db: Queryable;
  processor: ProcessorClient;
  carrier: CarrierClient;
  outbox: DemoOutbox;
  holds: DuplicateHolds;
};
