import { Link } from "@/components/ui/link";
import { filterToParams, serializeRecordsParams, type RecordsQuery } from "@/lib/records/list-filters";

/**
 * The active searchable-field filter as a chip (`receipt = ch_3Mq…`), with a link that drops it.
 * Rows whose writer recorded no tool are in no search index, so the chip's title says they never match.
 */
export function SearchFieldChip({ query }: { query: RecordsQuery }) {
  if (!query.field) return null;
  const without = `/records${serializeRecordsParams({ ...filterToParams(query), field: null, limit: query.limit })}`;
  return (
    <div className="flex flex-wrap items-center gap-1.5 text-xs" data-testid="search-field-chip">
      <span className="w-12 shrink-0 font-medium uppercase tracking-wide text-slate-500">Field</span>
      <span
        className="inline-flex max-w-full items-center gap-1.5 rounded-full border border-slate-900 bg-slate-900 px-2.5 py-0.5 text-white"
        title="exact match on this response field of the tools that configure it; records with no recorded tool never match"
      >
        <span>{query.field.label}</span>
        <span className="text-slate-300">=</span>
        <span className="break-all font-mono">{query.field.value}</span>
      </span>
      <Link href={without} className="text-slate-600 underline hover:text-slate-900">
        clear<span className="sr-only"> the {query.field.label} filter</span>
      </Link>
    </div>
  );
}
