import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { getConfig } from "@/lib/config/load";
import { getDb, getReadDb } from "@/lib/db/client";
import { lookupSearchFields } from "@/lib/search/lookup-search-fields";
import { traceRefs, type LookupResult, lookUpRefs, type RefTrace } from "@/lib/records/lookup";
import { getRecordDetail, type RecordDetail } from "@/lib/records/record-detail";
import { redactionOf } from "@/lib/privacy/redact";
import { readRowVersion } from "@/lib/records/visible-records";
import { listAudit } from "@/lib/audit/list-audit";
import { findOldestStuckClaim, type NextStuckClaim, type StuckFilter } from "@/lib/records/stuck-claims";
import { resolvedClaimFromAudit, type ResolvedClaim } from "@/lib/resolve/resolved-claim";

/** The confirmation of a resolve made from the record page: what the audit entry says, and what to clear next. */
export type ResolutionConfirmation = { resolved: ResolvedClaim; nextStuck: NextStuckClaim | null };

export type RecordPageData =
  | {
      kind: "record";
      detail: RecordDetail;
      mayResolve: boolean;
      /** A completed record the reader may allow to repeat (issue #28): the panel shows. */
      mayAllowRepeat: boolean;
      version: string | null;
      confirmation: ResolutionConfirmation | null;
    }
  | { kind: "gone"; trace: RefTrace; confirmation: ResolutionConfirmation | null }
  | { kind: "absent" };

/**
 * One record for its page: the detail, with the row's exact version when the reader may resolve
 * it (for the compare-and-set); or, gone from the table, what the audit log says of it. Absent
 * and "another tenant's" are the same answer: existence is data too.
 *
 * From the read replica — except right after a resolve from this page (`resolved` names its audit
 * entry), when the page must show what the resolve did: then everything comes from the primary.
 * A stale version read from the replica costs nothing worse than a conflict: the resolve's
 * compare-and-set runs on the primary.
 */
export async function loadRecordPageData(
  actor: Actor,
  key: string,
  now: Date,
  options: { resolved: string | null; within?: StuckFilter } = { resolved: null },
): Promise<RecordPageData> {
  const db = options.resolved === null ? getReadDb() : getDb();
  const detail = await getRecordDetail(db, getConfig(), actor, key, now);
  if (!detail) {
    const [trace] = await traceRefs(db, actor, [key], { redact: redactionOf(getConfig()) });
    if (!trace || trace.fate === "never_seen") return { kind: "absent" };
    return {
      kind: "gone",
      trace,
      confirmation: await loadConfirmation(actor, key, options.resolved, now, options.within),
    };
  }
  const mayResolve = can(actor.role, "records:resolve") && detail.record.status === "in_progress";
  const mayAllowRepeat = can(actor.role, "records:allow-repeat") && detail.record.status === "completed";
  const [version, confirmation] = await Promise.all([
    mayResolve || mayAllowRepeat ? readRowVersion(db, actor, key) : null,
    loadConfirmation(actor, key, options.resolved, now, options.within),
  ]);
  return { kind: "record", detail, mayResolve, mayAllowRepeat, version, confirmation };
}

/**
 * The named audit entry, if it is a resolution of this key within the reader's tenants; else no
 * confirmation. The next stuck claim is within the Stuck filter the user came from, if any.
 */
async function loadConfirmation(
  actor: Actor,
  key: string,
  auditId: string | null,
  now: Date,
  within: StuckFilter = { tenant: null, tool: null },
): Promise<ResolutionConfirmation | null> {
  if (auditId === null) return null;
  const db = getDb(); // right after the resolve it confirms: the primary
  const query = { id: auditId, key, actor: null, action: null, tenant: null, from: null, to: null, cursor: null };
  const [entry] = (await listAudit(db, actor, { ...query, limit: 1 }, { redact: redactionOf(getConfig()) })).entries;
  const resolved = entry ? resolvedClaimFromAudit(key, entry) : null;
  if (!resolved) return null;
  return { resolved, nextStuck: await findOldestStuckClaim(db, actor, getConfig(), now, within) };
}

/** The lookup page's search, within the reader's tenants. */
export function lookUpForPage(actor: Actor, text: string): Promise<LookupResult> {
  const db = getReadDb();
  return lookUpRefs(db, actor, text, {
    redact: redactionOf(getConfig()),
    searchFields: lookupSearchFields(actor),
  });
}
