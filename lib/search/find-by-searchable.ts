import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import type { Actor } from "@/lib/identity/actor";
import {
  toRecordSummary,
  type LookupRow,
  type SearchableFieldMatch,
  type SearchFieldsQuery,
} from "@/lib/records/lookup";
import { maskedValueClass, type MaskedReason } from "@/lib/privacy/masked-value";
import { searchSpecs, toolLiteral, type SearchSpec } from "@/lib/config/search-specs";
import { actorTenantScope, type TenantScope } from "@/lib/tenancy/tenant-scope";

export type RefusedValue = { value: string; reason: MaskedReason; message: string };
/** Each searched value → the records holding it (newest first); `refused`: values never searched. */
export type SearchableMatches = Map<string, SearchableFieldMatch[]> & { refused: RefusedValue[] };

/** Rows one value may match before the caller says "more": an id names one call, a shared order id a few. */
export const MAX_MATCHES_PER_VALUE = 20;
/**
 * The most values a prepared search has: its LIMIT is written in, so each count is a text of its own, kept on
 * every connection. A paste names a ref or two; a longer one is sent unnamed.
 */
const MAX_PREPARED_VALUES = 3;
/** Longer than any id a processor or carrier hands out. */
export const MAX_SEARCHABLE_VALUE = 200;

/** A search of some values: its statement (null: nothing to send) and how its rows become matches. */
export type SearchableQuery = SearchFieldsQuery<SearchableMatches>;

/**
 * The records, in the actor's tenants, whose configured searchable field (tools.<tool>.search)
 * equals each value exactly. One branch per (tool, label) with `= ANY(values)`, all in one
 * statement: a few scans of their expression indexes, whatever the number of values. Never an
 * oracle (issue #28 §2): a value holding an e-mail address or a card number is never queried, for
 * any role, and comes back in `refused`; only string or number fields match, never a whole object's
 * JSON text.
 */
export async function findBySearchableValues(
  db: Db,
  actor: Actor,
  config: Pick<IdemConfig, "tools">,
  values: readonly string[],
): Promise<SearchableMatches> {
  const query = searchableQuery(actor, config, values);
  return query.collect(
    query.statement ? await rawQuery<LookupRow>(db, query.statement, { prepareAs: query.prepareAs }) : [],
  );
}

/** The search findBySearchableValues sends, for a caller that sends it with statements of its own. */
export function searchableQuery(
  actor: Actor,
  config: Pick<IdemConfig, "tools">,
  values: readonly string[],
): SearchableQuery {
  const refused: RefusedValue[] = [];
  const queried: string[] = [];
  for (const value of new Set(values)) {
    const masked = maskedValueClass(value);
    if (masked !== null) {
      refused.push({ value, reason: masked, message: refusalMessage(masked) });
      continue;
    }
    if (value.length === 0 || value.length > MAX_SEARCHABLE_VALUE) continue;
    queried.push(value);
  }
  const specs = searchSpecs(config);
  const tenantScope = actorTenantScope(actor);
  return {
    prepareAs: queried.length <= MAX_PREPARED_VALUES ? "searchable" : undefined,
    statement:
      queried.length === 0 || specs.length === 0
        ? null
        : Prisma.join(
            specs.map((spec, index) => searchableStatement(spec, queried, tenantScope, index)),
            " UNION ALL ",
          ),
    collect(rows) {
      const found = Object.assign(new Map<string, SearchableFieldMatch[]>(queried.map((value) => [value, []])), {
        refused,
      });
      for (const row of rows) {
        const spec = row.spec === null ? undefined : specs[row.spec];
        const list = found.get(row.token);
        if (!spec || !list || list.length >= MAX_MATCHES_PER_VALUE) continue;
        const { spec: _spec, token: _token, ...summary } = row;
        list.push({ ...toRecordSummary(summary), field: { label: spec.label, tool: spec.tool } });
      }
      for (const list of found.values()) list.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return found;
    },
  };
}

export function refusalMessage(reason: MaskedReason): string {
  return reason === "email"
    ? "an e-mail address is masked on every page, so it is never searched"
    : "a card number is masked on every page, so it is never searched";
}

/**
 * The branch of one (tool, label), the `index`-th of searchSpecs(config). The expression and the
 * tool are literals, written as in the index (lib/search/searchable-specs.ts), so the planner matches
 * its expression and proves its predicate; the values are the one parameter (the LIMIT is written in).
 * A subquery, so that its ORDER BY and LIMIT stay its own inside a UNION ALL.
 *
 * Prepared, it is planned once per connection: the values and the reader's tenants reach the scan through
 * a subquery PostgreSQL does not flatten (`OFFSET 0`), so a custom plan estimates as the generic one does
 * and the generic one is kept. The matches are found in a MATERIALIZED CTE and only then ordered and cut:
 * a plan that knows neither the values nor how few rows hold them, asked for the newest 20 directly, walks
 * the tool's rows in time order instead (5.2 s at 1 M rows; docs/bench.md, "seventeenth pass";
 * tests/integration/searchable-plan.test.ts).
 */
export function searchableStatement(
  spec: SearchSpec,
  values: string[],
  tenantScope: TenantScope,
  index = 0,
): Prisma.Sql {
  const expression = Prisma.raw(spec.expression);
  return Prisma.sql`SELECT * FROM (
    WITH found AS MATERIALIZED (
      SELECT m.* FROM (SELECT ${values}::text[] AS wanted, ${tenantScope.list} AS tenants OFFSET 0) AS v
      CROSS JOIN LATERAL (
        SELECT ${expression} AS token, key, tenant, subject, tool, status, created_at AS "createdAt", updated_at AS "updatedAt"
        FROM idempotency
        WHERE tool = ${Prisma.raw(toolLiteral(spec.tool))} AND ${expression} = ANY(v.wanted)
          AND jsonb_typeof(response #> ${Prisma.raw(spec.pathLiteral)}) IN ('string', 'number')
          ${tenantScope.andFrom(Prisma.sql`v.tenants`)}) AS m)
    SELECT ${Prisma.raw(String(index))}::int AS spec, found.* FROM found
    ORDER BY "createdAt" DESC
    LIMIT ${Prisma.raw(String(values.length * MAX_MATCHES_PER_VALUE))}) AS ${Prisma.raw(`searchable_${index}`)}`;
}
