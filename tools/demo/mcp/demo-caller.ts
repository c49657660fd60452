/**
 * DEMO ONLY. A real tool server derives the caller (tenant, subject) from authentication and
 * reads the real clock. The demo server takes both from the request's `_meta`, so the traffic
 * generator can replay 48 simulated hours through it and inject faults per call. Never copy
 * this into a server that faces real callers: anyone could claim to be any tenant.
 */
export const DEMO_META = {
  tenant: "idem.demo/tenant",
  subject: "idem.demo/subject",
  /** ISO time the call happens at, in simulated time. */
  at: "idem.demo/at",
  fault: "idem.demo/fault",
  /** Extra time the upstream takes to answer this call (ms), e.g. 300 to widen the in-flight window. */
  latencyMs: "idem.demo/latencyMs",
  /** Hold the claim until a duplicate of this call was turned away (at most this many ms): a planned race. */
  holdForDuplicateMs: "idem.demo/holdForDuplicateMs",
  /** Set by the server on its results: what the guard did (executed, replayed, in_flight, ...). */
  outcome: "idem.demo/outcome",
} as const;

/**
 * timeout / failure: the upstream is told (x-demo-fault) to hold back its answer after acting /
 * to refuse before acting. crash-before / crash-after: the handler dies before calling the
 * processor (it never saw the charge) / after the processor took it (before the row is completed).
 */
export const DEMO_FAULTS = ["timeout", "failure", "crash-before", "crash-after"] as const;
export type DemoFault = (typeof DEMO_FAULTS)[number];

export const DEFAULT_DEMO_TENANT = "acme";
/** The longest a call may hold its claim for a duplicate: a planned race, never a stuck claim. */
export const MAX_HOLD_FOR_DUPLICATE_MS = 10_000;
export const DEFAULT_DEMO_SUBJECT = "demo_host";

export type DemoCaller = {
  tenant: string;
  subject: string;
  /** Simulated now: the `_meta` time plus the real time elapsed since the request arrived. */
  clock: () => Date;
  fault: DemoFault | undefined;
  latencyMs: number;
  holdForDuplicateMs: number;
  /** The calling host from the MCP handshake ("name version"), written on the guard's events. */
  client: string | null;
};

export function demoCallerFromMeta(
  meta: Record<string, unknown> | undefined,
  client: string | null = null,
): DemoCaller {
  const received = Date.now();
  const text = (name: string, fallback: string) => {
    const value = meta?.[name];
    return typeof value === "string" && value.trim() !== "" ? value : fallback;
  };
  const atText = meta?.[DEMO_META.at];
  const at = typeof atText === "string" ? Date.parse(atText) : Number.NaN;
  const base = Number.isNaN(at) ? undefined : at;
  const fault = meta?.[DEMO_META.fault];
  const latency = meta?.[DEMO_META.latencyMs];
  const hold = meta?.[DEMO_META.holdForDuplicateMs];
  return {
    tenant: text(DEMO_META.tenant, DEFAULT_DEMO_TENANT),
    subject: text(DEMO_META.subject, DEFAULT_DEMO_SUBJECT),
    clock: base === undefined ? () => new Date() : () => new Date(base + (Date.now() - received)),
    fault:
      typeof fault === "string" && (DEMO_FAULTS as readonly string[]).includes(fault)
        ? (fault as DemoFault)
        : undefined,
    latencyMs: typeof latency === "number" && Number.isFinite(latency) && latency > 0 ? Math.min(latency, 10_000) : 0,
    holdForDuplicateMs:
      typeof hold === "number" && Number.isFinite(hold) && hold > 0 ? Math.min(hold, MAX_HOLD_FOR_DUPLICATE_MS) : 0,
    client,
  };
}
