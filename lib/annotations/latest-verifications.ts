import "server-only";
import type { Db } from "@/lib/db/prisma";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";
import { listingEntryHash } from "@/lib/tool-listings/listing-entry-hash";
import type { LatestVerification, VerificationEvidence } from "@/lib/annotations/tool-verification-types";
import { toVerificationResult, type ToolVerificationRow } from "@/lib/annotations/tool-verification-row";
import { reviewKey } from "./annotation-reviews";

/** A tool to find the latest verification of, with its entry in the server's latest good listing (null: gone from it). */
export type VerificationLookup = { server: string; tool: string; current: ListedTool | null };

/**
 * The newest `tool_verification` run of each (server, tool) asked about, keyed by reviewKey(server, tool).
 * One query: each pair is one probe of tool_verification_latest_idx (server, tool, finished_at DESC, id DESC),
 * so the number of stored runs never matters. A run is stale when the tool's current listing entry hashes
 * differently from the entry the run saw, or when the tool is gone from the listing.
 */
export async function latestVerifications(
  db: Db,
  lookups: readonly VerificationLookup[],
): Promise<Map<string, LatestVerification>> {
  const result = new Map<string, LatestVerification>();
  if (lookups.length === 0) return result;
  const rows = await db.$queryRaw<ToolVerificationRow[]>`
    SELECT v.id, v.server, v.tool, v.snapshot_id AS "snapshotId", v.listing_hash AS "listingHash",
           v.arguments_hash AS "argumentsHash", v.concurrency, v.verdict, v.step, v.summary, v.evidence,
           v.started_at AS "startedAt", v.finished_at AS "finishedAt", v.verified_by AS "verifiedBy"
      FROM unnest(${lookups.map((l) => l.server)}::text[], ${lookups.map((l) => l.tool)}::text[]) AS p(server, tool)
      CROSS JOIN LATERAL (
        SELECT * FROM tool_verification t
         WHERE t.server = p.server AND t.tool = p.tool
         ORDER BY t.finished_at DESC, t.id DESC
         LIMIT 1) v`;
  const current = new Map(lookups.map((l) => [reviewKey(l.server, l.tool), l.current]));
  for (const row of rows) {
    const key = reviewKey(row.server, row.tool);
    const entry = current.get(key) ?? null;
    const run = toVerificationResult(row);
    result.set(key, {
      ...run,
      evidence: toEvidence(row.evidence),
      stale: entry === null || currentHash(entry) !== row.listingHash,
    });
  }
  return result;
}

/** A listing entry that cannot be canonicalised (it never could have been hashed by a run) matches no run. */
function currentHash(entry: ListedTool): string | null {
  try {
    return listingEntryHash(entry);
  } catch {
    return null;
  }
}

/** evidence is jsonb written by the runner; a missing part reads as empty rather than breaking the audit. */
function toEvidence(value: unknown): VerificationEvidence {
  const e = (typeof value === "object" && value !== null ? value : {}) as Partial<VerificationEvidence>;
  return {
    calls: Array.isArray(e.calls) ? e.calls : [],
    checks: Array.isArray(e.checks) ? e.checks : [],
    rows: Array.isArray(e.rows) ? e.rows : [],
    earlierRow: typeof e.earlierRow === "object" && e.earlierRow !== null ? e.earlierRow : null,
    upstream: e.upstream ?? null,
    hint: e.hint ?? null,
  };
}
