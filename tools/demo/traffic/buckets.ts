import { DEFAULT_WINDOW_SECONDS } from "idem-guard";

/** The guard's default window: calls in one bucket with the same arguments share a key. */
export const BUCKET_MS = DEFAULT_WINDOW_SECONDS * 1000;

/** The demo tools keyed by the time bucket (send_receipt_email has a business key, create_shipment none). */
export const BUCKET_KEYED_TOOLS: ReadonlySet<string> = new Set(["charge_card", "refund_charge"]);

/** The bucket a simulated time falls in, as the guard counts it (whole seconds first). */
export function bucketOf(at: Date): number {
  return Math.floor(Math.trunc(at.getTime() / 1000) / DEFAULT_WINDOW_SECONDS);
}

/** The first bucket edge at or after `atMs`. */
export function nextBucketEdge(atMs: number): number {
  return Math.ceil(atMs / BUCKET_MS) * BUCKET_MS;
}
