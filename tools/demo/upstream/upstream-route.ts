import type { Counters } from "./counters";
import type { Reply } from "./json-http";
import type { ReferenceLedger } from "./reference-ledger";
import type { RouteDefinition } from "./router";

export interface RouteContext {
  /** "POST /charges": the route's name in the stats, and part of a reference's fingerprint. */
  route: string;
  params: Record<string, string>;
  query: URLSearchParams;
  readBody(): Promise<Record<string, unknown>>;
  /** This request's processing time (0 unless it is a mutation). */
  latencyMs: number;
  /** When the request happened: the demo caller's simulated time (`x-demo-at`), else the wall clock. */
  at: Date;
  /** Aborts when the server stops, so nothing keeps waiting on a closed server. */
  stopping: AbortSignal;
  counters: Counters;
  ledger: ReferenceLedger;
}

export interface UpstreamRoute extends RouteDefinition {
  /**
   * mutation: fault rates and latency apply; query: only a forced `x-demo-fault` applies;
   * admin (/_stats and friends): no faults, not counted, so observing never changes what is observed.
   */
  kind: "mutation" | "query" | "admin";
  handle(context: RouteContext): Promise<Reply> | Reply;
}
