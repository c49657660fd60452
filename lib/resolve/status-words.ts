import type { ProcessorOutcome } from "./processor-check-types";

// Words processors use for "it happened", "it did not happen" and "not settled yet". A status
// outside these lists is reported as unknown, never guessed: acting on a misread status is how
// a released claim turns into a second charge.
const TAKEN = new Set(["succeeded", "success", "completed", "captured", "created"]);
const NOT_TAKEN = new Set(["failed", "declined", "not_found", "canceled", "cancelled"]);
const UNSETTLED = new Set(["pending", "processing", "in_progress", "unknown"]);

export type StatusReading = { outcome: ProcessorOutcome; reason: string };

/** Maps a processor's status word to an outcome, with the sentence that explains it. */
export function readStatusWord(status: unknown, who: string): StatusReading {
  if (typeof status !== "string") return { outcome: "unknown", reason: `${who} answered without a status field` };
  const word = status.toLowerCase();
  if (TAKEN.has(word)) return { outcome: "taken", reason: `${who} says the operation happened (status ${status})` };
  if (word === "not_found") return { outcome: "not_taken", reason: `${who} has no operation with this reference` };
  if (NOT_TAKEN.has(word))
    return {
      outcome: "not_taken",
      reason: `${who} says it did not happen: it declined or failed it (status ${status})`,
    };
  if (UNSETTLED.has(word))
    return { outcome: "unknown", reason: `${who} has not settled it yet (status ${status}); ask again later` };
  return {
    outcome: "unknown",
    reason: `${who} answered a status the console does not know (${JSON.stringify(status.slice(0, 40))})`,
  };
}
