import { createHash } from "node:crypto";
import { canonicalJcs } from "idem-guard";

/**
 * sha256 hex of one tool's entry in a tools/list answer (name, annotations, input schema; RFC 8785
 * canonical JSON, so key order does not matter). A verification stores it; the tool audit calls the run
 * stale when the tool's current entry hashes differently (issue #18).
 */
export function listingEntryHash(entry: { name: string; annotations?: unknown; inputSchema?: unknown }): string {
  const material = { name: entry.name, annotations: entry.annotations ?? null, inputSchema: entry.inputSchema ?? null };
  return createHash("sha256")
    .update(canonicalJcs(JSON.stringify(material)), "utf8")
    .digest("hex");
}
