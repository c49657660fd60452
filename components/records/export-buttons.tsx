import { EXPORT_FORMATS } from "@/lib/records/list-filters";

/** Downloads of the current filter (not just this page), streamed by the API and bounded. */
export function ExportButtons({ filterQuery, maxRows }: { filterQuery: string; maxRows: number }) {
  const join = filterQuery ? `${filterQuery}&` : "?";
  return (
    <div className="flex items-center gap-2" data-testid="export-buttons">
      <span className="text-xs text-slate-500" title={`An export stops at ${maxRows.toLocaleString("en")} rows and says so at its end`}>
        Export filter
      </span>
      {EXPORT_FORMATS.map((format) => (
        <a
          key={format}
          href={`/api/v1/records/export${join}format=${format}`}
          download
          className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-100"
        >
          {format.toUpperCase()}
        </a>
      ))}
    </div>
  );
}
