/** How a demo upstream misbehaves; every field can be changed at run time (PATCH /_faults). */
export interface FaultSettings {
  /**
   * Processing time of each POST (its reference reads "pending" meanwhile): a fixed delay or a
   * [min, max] range drawn from the seeded generator. Header `x-demo-latency-ms` overrides it per request.
   */
  latencyMs: number | readonly [number, number];
  /** Share of POSTs whose side effect happens but whose answer is held back for `hangMs`. */
  timeoutRate: number;
  /** Share of POSTs answered 503 before any side effect. */
  failureRate: number;
  /** How long a "timeout" holds the answer (or until the client hangs up, or stop()). */
  hangMs: number;
}

export interface DemoUpstreamOptions extends Partial<FaultSettings> {
  /** 0 (the default) picks any free port. */
  port?: number;
  host?: string;
  /** Same seed, same sequence of injected faults and latencies. Default 1. */
  seed?: number;
}

export interface UpstreamStats {
  requests: { total: number; byRoute: Record<string, number> };
  /** Charges, refunds or shipments actually created: the count the guard's tests assert on (a repeat must not add one). */
  sideEffects: number;
  sideEffectsByReference: Record<string, number>;
  /** Side effects performed for requests that carried no reference (each one a potential duplicate). */
  sideEffectsWithoutReference: number;
  /** Requests whose reference was already known: answered from the ledger, nothing performed. */
  duplicatesPrevented: number;
  timeoutsInjected: number;
  failuresInjected: number;
}

export interface DemoUpstream {
  /** e.g. "http://127.0.0.1:40123", no trailing slash. */
  url: string;
  port: number;
  stats(): UpstreamStats;
  faults(): FaultSettings;
  /** Validates and applies; throws (naming the field) on a bad value. Returns the new settings. */
  setFaults(partial: Partial<FaultSettings>): FaultSettings;
  /** Forgets every charge/shipment and reference, zeroes the counters and restarts the seeded sequence. */
  reset(): void;
  /** Settled references and their outcomes (what `GET /references/{r}` answers), to persist across restarts. */
  exportReferences(): ReferenceSnapshot;
  /** Loads a snapshot; references already known are kept. Returns how many were added. */
  importReferences(snapshot: ReferenceSnapshot): number;
  /** Closes the server and every open connection, held-back ones included. */
  stop(): Promise<void>;
}

export type ReferenceSnapshot = Record<string, { fingerprint: string; outcome: import("./reference-ledger").Outcome }>;
