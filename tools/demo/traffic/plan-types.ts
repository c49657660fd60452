import type { DemoFault } from "@/tools/demo/mcp/demo-caller";
import type { DemoHost } from "@/tools/demo/traffic/demo-hosts";

export const DEMO_TOOLS = [
  "charge_card",
  "refund_charge",
  "create_shipment",
  "send_receipt_email",
  "get_charge_status",
  "get_shipment_status",
] as const;
export type DemoTool = (typeof DEMO_TOOLS)[number];

export type Args = Record<string, unknown>;

/** What earlier calls of the same scenario produced, for calls whose arguments depend on them. */
export type ScenarioContext = { chargeId?: string; chargeAmount?: number; lastRef?: string };

export type PlannedCall = {
  tool: DemoTool;
  /** Simulated time of the call (sent as `_meta`). */
  at: Date;
  tenant: string;
  subject: string;
  /** Fixed arguments, or arguments built from earlier results; undefined skips the call. */
  args: Args | ((context: ScenarioContext) => Args | undefined);
  fault?: DemoFault;
  latencyMs?: number;
  /** Keep the claim until a duplicate was rejected (a planned race; see duplicate-holds.ts). */
  holdForDuplicateMs?: number;
  /** Real-time delay before firing, within a group of calls fired together. */
  delayMs?: number;
};

/** Calls fired together; a scenario's steps run one after another. */
export type Step = PlannedCall[];

export const SCENARIO_KINDS = [
  "purchase",
  "declined",
  "timeout_retry",
  "slow_retry",
  "concurrent_duplicate",
  "crash_after",
  "crash_before",
  "upstream_failure",
  "next_day_repeat",
  "shipment",
  "refund_timeout",
  "email_crash",
  "bucket_edge_retry",
  "receipt_elsewhere",
  "live_timeout",
  "live_crash_after",
  "live_crash_before",
] as const;
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

/** `host`: the MCP client whose connection carries every call of the scenario. */
export type Scenario = { kind: ScenarioKind; host: DemoHost; start: Date; steps: Step[] };
