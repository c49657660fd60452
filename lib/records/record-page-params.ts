import { createLoader, createParser, createSerializer } from "nuqs/server";

/**
 * THE record page's URL state: `resolved`, the audit entry of a resolve just made from this page,
 * so the page (even after a release deleted the row, or a reload) confirms what happened. Anything
 * but an entry id is ignored. Imported by client components: no server code here.
 */
const auditEntryId = createParser<string>({
  parse: (value) => (/^\d{1,19}$/.test(value) ? value : null),
  serialize: String,
});

export const recordPageSearchParams = { resolved: auditEntryId };

export const loadRecordPageParams = createLoader(recordPageSearchParams);

/** `serializeRecordPageParams("/records/<key>", { resolved })` → the record page confirming that entry. */
export const serializeRecordPageParams = createSerializer(recordPageSearchParams);
