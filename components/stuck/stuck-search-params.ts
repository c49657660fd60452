import { parseAsBoolean, parseAsStringLiteral } from "nuqs/server";
import { DEFAULT_STUCK_ORDER, LIST_ORDERS, recordsSearchParams } from "@/lib/records/records-search-params";

/**
 * The stuck page's URL state: the records list's own tenant/tool/paging parsers (one set of
 * rules), plus `order` (oldest first unless the URL says newest) and `refresh`, whether the page
 * reloads itself (off unless the URL says so).
 */
export const stuckSearchParams = {
  tenant: recordsSearchParams.tenant,
  tool: recordsSearchParams.tool,
  cursor: recordsSearchParams.cursor,
  dir: recordsSearchParams.dir,
  limit: recordsSearchParams.limit,
  order: parseAsStringLiteral(LIST_ORDERS).withDefault(DEFAULT_STUCK_ORDER),
  refresh: parseAsBoolean.withDefault(false),
};

/** How often an auto-refreshing stuck page asks the server again. */
export const AUTO_REFRESH_MS = 15_000;
