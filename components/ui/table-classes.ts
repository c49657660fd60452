/**
 * The classes every console table shares, whether rendered on the client (DataTable, TanStack)
 * or on the server (StaticTable): one look, one narrow-screen card layout (`data-table-cards`,
 * app/globals.css). Not a client module, so server components can read the strings.
 */
export const TABLE_CLASSES = {
  wrapper: "data-table-cards relative overflow-x-auto rounded-lg border border-slate-200 bg-white",
  table: "min-w-full text-sm",
  head: "border-b border-slate-200 bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500",
  body: "divide-y divide-slate-100",
  th: "px-3 py-2 font-medium",
  td: "px-3 py-2",
} as const;
