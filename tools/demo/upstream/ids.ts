import { randomBytes } from "node:crypto";

/** Stripe-style id: a type prefix and random hex, e.g. "ch_3f9a1c2b7d4e5f60718293a4". */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/** A carrier-looking tracking number: "1Z" and 16 upper-case hex characters. */
export function newTrackingNumber(): string {
  return `1Z${randomBytes(8).toString("hex").toUpperCase()}`;
}
