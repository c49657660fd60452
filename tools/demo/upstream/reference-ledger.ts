import type { Reply } from "./json-http";

/** The answer an operation settled on: replayed verbatim to every repeat of its reference. */
export interface Outcome {
  status: "succeeded" | "failed";
  reply: Reply;
  /** What `GET /references/{reference}` hands the resolver: the charge, refund or shipment, or the decline. */
  receipt: unknown;
}

export type ReferenceStatus = { status: "pending" } | { status: "succeeded" | "failed"; receipt: unknown };

interface Entry {
  /** The request that first used the reference; a different request under the same reference is refused. */
  fingerprint: string;
  outcome: Outcome | undefined;
  settled: Promise<Outcome>;
}

/**
 * The upstream's own idempotency store (like Stripe's): reference → outcome. An entry exists from
 * the moment the side effect is performed and reads "pending" until processing finishes.
 */
export function createReferenceLedger() {
  let entries = new Map<string, Entry>();

  return {
    find(reference: string): { fingerprint: string; settled: Promise<Outcome> } | undefined {
      return entries.get(reference);
    },
    /** Records `outcome` under `reference` now; lookups see it once `processing` resolves. */
    record(reference: string, fingerprint: string, outcome: Outcome, processing: Promise<unknown>): Promise<Outcome> {
      const entry: Entry = {
        fingerprint,
        outcome: undefined,
        settled: processing.then(() => {
          entry.outcome = outcome;
          return outcome;
        }),
      };
      entries.set(reference, entry);
      return entry.settled;
    },
    status(reference: string): ReferenceStatus | undefined {
      const entry = entries.get(reference);
      if (!entry) return undefined;
      if (!entry.outcome) return { status: "pending" };
      return { status: entry.outcome.status, receipt: entry.outcome.receipt };
    },
    clear(): void {
      entries = new Map();
    },
    /** The settled outcomes, for a demo that restarts to find its upstreams still remembering. */
    exportSettled(): Record<string, { fingerprint: string; outcome: Outcome }> {
      const settled: Record<string, { fingerprint: string; outcome: Outcome }> = {};
      for (const [reference, entry] of entries)
        if (entry.outcome) settled[reference] = { fingerprint: entry.fingerprint, outcome: entry.outcome };
      return settled;
    },
    importSettled(settled: Record<string, { fingerprint: string; outcome: Outcome }>): number {
      let imported = 0;
      for (const [reference, { fingerprint, outcome }] of Object.entries(settled)) {
        if (entries.has(reference)) continue;
        entries.set(reference, { fingerprint, outcome, settled: Promise.resolve(outcome) });
        imported += 1;
      }
      return imported;
    },
  };
}

export type ReferenceLedger = ReturnType<typeof createReferenceLedger>;
