import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { carriedTokenColumn, type TokenCheckCarrier } from "@/lib/auth/carried-token-check";
import type { DuplicateRow } from "@/lib/duplicates/list-duplicates";

export type DetailRecordRow = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  response: Prisma.JsonValue | null;
  createdAt: Date;
  updatedAt: Date | null;
  /** Null for writers that do not record it (the column is optional). */
  argumentsSha256: string | null;
};
/** `client`: the calling host, null where the writer does not record it. */
export type DetailEventRow = { kind: string; at: Date; detail: Prisma.JsonValue | null; client: string | null };
export type DetailAuditRow = {
  id: string;
  at: Date;
  actor: string;
  actorRole: string;
  action: string;
  reason: string | null;
  before: Prisma.JsonValue | null;
  after: Prisma.JsonValue | null;
  evidence: Prisma.JsonValue | null;
};

/**
 * A pair the duplicate scan found with this claim in it, and the other claim's row as the table holds it now
 * (status null: no longer in the table — trimmed, released, allowed to repeat).
 */
export type RecordDuplicateRow = DuplicateRow & {
  otherStatus: string | null;
  otherResponse: Prisma.JsonValue | null;
  /** The row now under the other key: a later claim of that key when it differs from the pair's time. */
  otherCreatedAt: Date | null;
};

type Read = {
  record: (Omit<DetailRecordRow, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string | null }) | null;
  events: (Omit<DetailEventRow, "at"> & { at: string })[];
  audit: (Omit<DetailAuditRow, "at"> & { at: string })[];
  duplicates: (Omit<RecordDuplicateRow, "firstAt" | "secondAt" | "otherCreatedAt"> & {
    firstAt: string;
    secondAt: string;
    otherCreatedAt: string | null;
  })[];
  token: unknown;
};

/** More than one claim can pair with the same earlier one (two retries); a page names at most this many. */
const MAX_DUPLICATES = 20;

/**
 * What the record page reads, in one statement: the row if the actor may see its tenant, its
 * first `maxEvents` events and `maxAudit` audit entries, oldest first. Three model queries were
 * three trips through Prisma's query compiler per request (docs/bench.md, "Speed left on the
 * table"); it goes on the client's pool (lib/db/raw-query.ts). The events and entries are read by
 * key alone; the caller drops them when the row is null. So are the duplicates the scan found that
 * this claim is part of, as the later execution or the earlier one (one operation: one tenant). A
 * bearer request's token check rides along as a column (`tokenCheck`, lib/auth/carried-token-check.ts), before the
 * duplicates: within the first 1,024 bytes of the text, which is what pg_stat_activity shows of a statement.
 */
export async function readRecordDetail(
  db: Db,
  actor: Actor,
  key: string,
  limits: { maxEvents: number; maxAudit: number },
  tokenCheck?: TokenCheckCarrier,
): Promise<{
  record: DetailRecordRow | null;
  events: DetailEventRow[];
  audit: DetailAuditRow[];
  duplicates: RecordDuplicateRow[];
}> {
  const [read] = await rawQuery<Read>(
    db,
    recordDetailStatement(actor, key, limits, carriedTokenColumn(db, tokenCheck)),
    { prepareAs: "record_detail" },
  );
  tokenCheck?.settle(db, read?.token ?? null);
  const record = read?.record ?? null;
  return {
    record: record
      ? {
          ...record,
          createdAt: new Date(record.createdAt),
          updatedAt: record.updatedAt === null ? null : new Date(record.updatedAt),
        }
      : null,
    events: (read?.events ?? []).map((e) => ({ ...e, at: new Date(e.at) })),
    audit: (read?.audit ?? []).map((a) => ({ ...a, at: new Date(a.at) })),
    duplicates: (read?.duplicates ?? []).map((d) => ({
      ...d,
      firstAt: new Date(d.firstAt),
      secondAt: new Date(d.secondAt),
      otherCreatedAt: d.otherCreatedAt === null ? null : new Date(d.otherCreatedAt),
    })),
  };
}

/**
 * readRecordDetail's one statement. The duplicates are two index lookups, not one `OR`: for that `OR` the prepared
 * statement's generic plan walked every pair by `second_at` (docs/bench.md, sixteenth pass; the plan's test is
 * tests/integration/record-detail-plan.test.ts).
 */
export function recordDetailStatement(
  actor: Actor,
  key: string,
  limits: { maxEvents: number; maxAudit: number },
  tokenColumn: Prisma.Sql,
): Prisma.Sql {
  return Prisma.sql`
    SELECT
      (SELECT row_to_json(r) FROM (
         SELECT key, tenant, subject, tool, status, response, created_at AS "createdAt", updated_at AS "updatedAt",
                arguments_sha256 AS "argumentsSha256"
         FROM idempotency WHERE key = ${key} ${actorTenantScope(actor).and()}) r) AS record,
      (SELECT COALESCE(json_agg(e ORDER BY e.at), '[]'::json) FROM (
         SELECT kind, at, detail, client FROM idempotency_event WHERE key = ${key} ORDER BY at LIMIT ${limits.maxEvents}) e) AS events,
      (SELECT COALESCE(json_agg(a ORDER BY a.at), '[]'::json) FROM (
         SELECT id::text AS id, at, actor, actor_role AS "actorRole", action, reason, before, after, evidence
         FROM audit_log WHERE key = ${key} ORDER BY at LIMIT ${limits.maxAudit}) a) AS audit,
      ${tokenColumn} AS token,
      (SELECT COALESCE(json_agg(d ORDER BY d."secondAt"), '[]'::json) FROM (
         SELECT p.tenant, p.subject, p.tool, p.arguments_sha256 AS "argumentsSha256", p.first_key AS "firstKey",
                p.second_key AS "secondKey", p.first_at AS "firstAt", p.second_at AS "secondAt", p.window_s AS "windowS",
                o.status AS "otherStatus", o.response AS "otherResponse", o.created_at AS "otherCreatedAt"
         FROM (SELECT * FROM duplicate_through WHERE second_key = ${key}
               UNION ALL
               SELECT * FROM duplicate_through WHERE first_key = ${key} AND second_key <> ${key}) p
         LEFT JOIN idempotency o ON o.key = CASE WHEN p.second_key = ${key} THEN p.first_key ELSE p.second_key END
         ORDER BY p.second_at LIMIT ${MAX_DUPLICATES}) d) AS duplicates`;
}
