import { createParser, createSerializer, parseAsString } from "nuqs/server";

/**
 * THE audit page's URL state as nuqs parsers, shared by the server page (links: the pager,
 * "newest") and the client filter form. Each value is the text as typed: the strict server-side
 * parser (parseAuditQuery) stays the authority and names whatever is wrong with it. Imported by
 * client components: no server code here.
 */

/** The page sizes the audit log offers; the strict parser (list-audit.ts) imports them from here. */
export const AUDIT_PAGE_SIZES = [25, 50, 100, 200] as const;

const pageSize = createParser<number>({
  parse: (value) => AUDIT_PAGE_SIZES.find((size) => String(size) === value) ?? null,
  serialize: String,
});

export const auditSearchParams = {
  id: parseAsString,
  actor: parseAsString,
  action: parseAsString,
  key: parseAsString,
  tenant: parseAsString,
  from: parseAsString,
  to: parseAsString,
  cursor: parseAsString,
  limit: pageSize,
};

/** `serializeAuditParams("/audit", {...})` → a link to that view of the log; empty values are left out. */
export const serializeAuditParams = createSerializer(auditSearchParams);

/** A link to the audit log with these form values ("" for none: left out of the link). */
export function auditHref(
  values: Partial<Record<Exclude<keyof typeof auditSearchParams, "limit">, string | null>> & {
    limit?: string | number | null;
  },
): string {
  const text = (value: string | null | undefined) => (value ? value : null);
  const limit =
    values.limit === undefined || values.limit === null || values.limit === "" ? null : Number(values.limit);
  return serializeAuditParams("/audit", {
    id: text(values.id),
    actor: text(values.actor),
    action: text(values.action),
    key: text(values.key),
    tenant: text(values.tenant),
    from: text(values.from),
    to: text(values.to),
    cursor: text(values.cursor),
    limit: limit !== null && Number.isFinite(limit) ? limit : null,
  });
}
