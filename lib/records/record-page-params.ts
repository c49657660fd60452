import { createLoader, createParser, createSerializer } from "nuqs/server";
import { recordsSearchParams } from "@/lib/records/records-search-params";
import type { StuckFilter } from "@/lib/records/stuck-claims";

/**
 * THE record page's URL state: `resolved`, the audit entry of a resolve just made from this page,
 * so the page (even after a release deleted the row, or a reload) confirms what happened; and
 * `stuckTenant` / `stuckTool`, the Stuck filter the user came from, so the next stuck claim it
 * offers after a resolve is in that filter. Anything unreadable is ignored. Imported by client
 * components: no server code here.
 */
const auditEntryId = createParser<string>({
  parse: (value) => (/^\d{1,19}$/.test(value) ? value : null),
  serialize: String,
});

export const recordPageSearchParams = {
  resolved: auditEntryId,
  stuckTenant: recordsSearchParams.tenant,
  stuckTool: recordsSearchParams.tool,
};

export const loadRecordPageParams = createLoader(recordPageSearchParams);

/** `serializeRecordPageParams("/records/<key>", { resolved })` → the record page confirming that entry. */
export const serializeRecordPageParams = createSerializer(recordPageSearchParams);

/** The Stuck filter a record page was opened from (both null: none). */
export function stuckFilterOf(params: { stuckTenant: string | null; stuckTool: string | null }): StuckFilter {
  return { tenant: params.stuckTenant, tool: params.stuckTool };
}

/**
 * A record's page as reached from the Stuck list: it carries the list's filter, so a resolve there
 * offers the next stuck claim within it. `#resolve` jumps to the panel (a forced release's way in).
 */
export function recordHrefFromStuck(key: string, within: StuckFilter | null, options: { toResolve?: boolean } = {}) {
  const path = serializeRecordPageParams(`/records/${encodeURIComponent(key)}`, {
    stuckTenant: within?.tenant ?? null,
    stuckTool: within?.tool ?? null,
  });
  return options.toResolve ? `${path}#resolve` : path;
}
