import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import type { Actor } from "@/lib/identity/actor";
import { toRecordSummary, type RecordSummary } from "@/lib/records/lookup";
import { maskedValueClass, type MaskedReason } from "@/lib/privacy/masked-value";
import { searchSpecs, toolLiteral, type SearchSpec } from "@/lib/config/search-specs";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";

export type SearchableMatch = RecordSummary & { field: { label: string; tool: string } };
export type RefusedValue = { value: string; reason: MaskedReason; message: string };
/** Each searched value → the records holding it (newest first); `refused`: values never searched. */
export type SearchableMatches = Map<string, SearchableMatch[]> & { refused: RefusedValue[] };

/** Rows one value may match before the caller says "more": an id names one call, a shared order id a few. */
export const MAX_MATCHES_PER_VALUE = 20;
/** Longer than any id a processor or carrier hands out. */
export const MAX_SEARCHABLE_VALUE = 200;

type Row = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  created_at: Date;
  updated_at: Date | null;
  matched: string;
};

/**
 * The records, in the actor's tenants, whose configured searchable field (tools.<tool>.search)
 * equals each value exactly. One statement per (tool, label) with `= ANY(values)`: a few scans
 * of its expression index, whatever the number of values. Never an oracle (issue #28 §2): a value
 * holding an e-mail address or a card number is never queried, for any role, and comes back in
 * `refused`; only string or number fields match, never a whole object's JSON text.
 */
export async function findBySearchableValues(
  db: Db,
  actor: Actor,
  config: Pick<IdemConfig, "tools">,
  values: readonly string[],
): Promise<SearchableMatches> {
  const found = Object.assign(new Map<string, SearchableMatch[]>(), { refused: [] as RefusedValue[] });
  const queried: string[] = [];
  for (const value of new Set(values)) {
    const masked = maskedValueClass(value);
    if (masked !== null) {
      found.refused.push({ value, reason: masked, message: refusalMessage(masked) });
      continue;
    }
    if (value.length === 0 || value.length > MAX_SEARCHABLE_VALUE) continue;
    found.set(value, []);
    queried.push(value);
  }
  if (queried.length === 0) return found;
  const scope = actorTenantScope(actor);
  const perSpec = await Promise.all(
    searchSpecs(config).map(async (spec) => ({ spec, rows: await matchingRows(db, spec, queried, scope.and()) })),
  );
  for (const { spec, rows } of perSpec)
    for (const row of rows) {
      const list = found.get(row.matched);
      if (!list || list.length >= MAX_MATCHES_PER_VALUE) continue;
      list.push({ ...toRecordSummary(toSummaryRow(row)), field: { label: spec.label, tool: spec.tool } });
    }
  for (const list of found.values()) list.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return found;
}

export function refusalMessage(reason: MaskedReason): string {
  return reason === "email"
    ? "an e-mail address is masked on every page, so it is never searched"
    : "a card number is masked on every page, so it is never searched";
}

function matchingRows(db: Db, spec: SearchSpec, values: string[], tenantScope: Prisma.Sql): Promise<Row[]> {
  // Not prepared: with its LIMIT a parameter, a generic plan can read the tool's whole index in order (seen in review).
  return rawQuery<Row>(db, searchableStatement(spec, values, tenantScope));
}

/**
 * The statement of one (tool, label). The expression and the tool are literals, written as in the
 * index (lib/search/searchable-specs.ts), so the planner matches its expression and proves its
 * predicate; the values are one parameter.
 */
export function searchableStatement(spec: SearchSpec, values: string[], tenantScope: Prisma.Sql): Prisma.Sql {
  const expression = Prisma.raw(spec.expression);
  return Prisma.sql`
    SELECT key, tenant, subject, tool, status, created_at, updated_at, ${expression} AS matched
    FROM idempotency
    WHERE tool = ${Prisma.raw(toolLiteral(spec.tool))} AND ${expression} = ANY(${values}::text[])
      AND jsonb_typeof(response #> ${Prisma.raw(spec.pathLiteral)}) IN ('string', 'number')
      ${tenantScope}
    ORDER BY created_at DESC
    LIMIT ${values.length * MAX_MATCHES_PER_VALUE}`;
}

function toSummaryRow(row: Row) {
  return {
    key: row.key,
    tenant: row.tenant,
    subject: row.subject,
    tool: row.tool,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
