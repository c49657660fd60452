import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { traceRefs, type LookupResult, lookUpRefs, type RefTrace } from "@/lib/records/lookup";
import { getRecordDetail, type RecordDetail } from "@/lib/records/record-detail";
import { redactionOf } from "@/lib/privacy/redact";
import { readRowVersion } from "@/lib/records/visible-records";

export type RecordPageData =
  | { kind: "record"; detail: RecordDetail; mayResolve: boolean; version: string | null }
  | { kind: "gone"; trace: RefTrace }
  | { kind: "absent" };

/**
 * One record for its page: the detail, with the row's exact version when the reader may resolve
 * it (for the compare-and-set); or, gone from the table, what the audit log says of it. Absent
 * and "another tenant's" are the same answer: existence is data too.
 */
export async function loadRecordPageData(actor: Actor, key: string, now: Date): Promise<RecordPageData> {
  const db = getDb();
  const detail = await getRecordDetail(db, getConfig(), actor, key, now);
  if (!detail) {
    const [trace] = await traceRefs(db, actor, [key], { redact: redactionOf(getConfig()) });
    return !trace || trace.fate === "never_seen" ? { kind: "absent" } : { kind: "gone", trace };
  }
  const mayResolve = can(actor.role, "records:resolve") && detail.record.status === "in_progress";
  const version = mayResolve ? await readRowVersion(db, actor, key) : null;
  return { kind: "record", detail, mayResolve, version };
}

/** The lookup page's search, within the reader's tenants. */
export function lookUpForPage(actor: Actor, text: string): Promise<LookupResult> {
  return lookUpRefs(getDb(), actor, text, { redact: redactionOf(getConfig()) });
}
