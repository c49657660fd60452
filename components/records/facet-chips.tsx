import { Link } from "@/components/ui/link";
import type { Facet, FacetEntry } from "@/lib/records/facet-counts";
import { filterToParams, serializeRecordsParams, UNRECORDED_TOOL, type RecordsQuery } from "@/lib/records/list-filters";

/**
 * Counts per status and per tool for the current filter. A chip is a link that sets (or, when
 * already set, clears) that filter; "≈" marks a planner estimate from fresh statistics (its
 * tooltip says what from), "500+" a lower bound (counting stopped at the cap to stay fast).
 */
export function FacetChips({ query, status, tool }: { query: RecordsQuery; status: Facet; tool: Facet }) {
  return (
    <div className="flex flex-col gap-2" data-testid="facets">
      <FacetRow
        label="Status"
        facet={status}
        isActive={(e) => query.status === e.value}
        hrefFor={(e) => href(query, { status: query.status === e.value ? null : e.value })}
        display={(e) => e.value ?? ""}
      />
      <FacetRow
        label="Tool"
        facet={tool}
        isActive={(e) => query.tool === (e.value ?? UNRECORDED_TOOL)}
        hrefFor={(e) => {
          const value = e.value ?? UNRECORDED_TOOL;
          return href(query, { tool: query.tool === value ? null : value });
        }}
        display={(e) => e.value ?? "unrecorded"}
      />
    </div>
  );
}

function href(query: RecordsQuery, change: { status?: string | null; tool?: string | null }): string {
  // A new filter starts again at the newest record: the cursor belongs to the old one.
  return `/records${serializeRecordsParams({ ...filterToParams(query), limit: query.limit, ...change })}`;
}

function FacetRow({
  label,
  facet,
  isActive,
  hrefFor,
  display,
}: {
  label: string;
  facet: Facet;
  isActive: (entry: FacetEntry) => boolean;
  hrefFor: (entry: FacetEntry) => string;
  display: (entry: FacetEntry) => string;
}) {
  return (
    <div className="flex flex-wrap items-center gap-1.5 text-xs" data-testid={`facet-${label.toLowerCase()}`}>
      <span className="w-12 shrink-0 font-medium uppercase tracking-wide text-slate-500">{label}</span>
      {facet.entries.length === 0 ? <span className="text-slate-500">{facet.note ?? "no records"}</span> : null}
      {facet.entries.map((entry) => {
        const active = isActive(entry);
        return (
          <Link
            key={String(entry.value)}
            href={hrefFor(entry)}
            aria-current={active ? "true" : undefined}
            title={countTitle(entry)}
            data-value={entry.value ?? UNRECORDED_TOOL}
            data-count-kind={entry.estimate ? "estimate" : entry.atLeast ? "lower-bound" : "exact"}
            className={`inline-flex items-center gap-1.5 rounded-full border px-2.5 py-0.5 ${
              active
                ? "border-slate-900 bg-slate-900 text-white"
                : "border-slate-300 bg-white text-slate-700 hover:border-slate-500"
            } ${entry.value === null ? "italic" : ""}`}
          >
            <span>{display(entry)}</span>
            <span className={`tabular-nums ${active ? "text-slate-300" : "text-slate-500"}`}>
              {entry.estimate ? "≈ " : ""}
              {entry.count.toLocaleString("en")}
              {entry.atLeast ? "+" : ""}
            </span>
          </Link>
        );
      })}
      {facet.entries.length > 0 && facet.note ? <span className="text-slate-500">({facet.note})</span> : null}
    </div>
  );
}

function countTitle(entry: FacetEntry): string {
  const { basis } = entry;
  if (entry.estimate && basis) {
    const rows = (n: number) => Math.round(n).toLocaleString("en");
    return (
      `planner estimate, within 2× of the true count: ${rows(basis.filterRows)} rows × ${(basis.share * 100).toFixed(1)} % share in the statistics; ` +
      `analysed ${basis.analyzedAt} at ${rows(basis.tableRows)} rows, ${rows(basis.modifiedSinceAnalyze)} changed since`
    );
  }
  if (entry.atLeast) return `at least ${entry.count.toLocaleString("en")}; counting stopped there to stay fast`;
  return "exact count";
}
