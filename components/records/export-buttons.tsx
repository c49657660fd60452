import { EXPORT_FORMATS } from "@/lib/records/records-search-params";
import { api } from "@/components/ui/api-endpoints";
import { apiUrl } from "@/lib/api/api-url";
import { buttonClass } from "@/components/ui/button";

/** Downloads of the current filter (not just this page), streamed by the API and bounded. */
export function ExportButtons({ filterQuery, maxRows }: { filterQuery: string; maxRows: number }) {
  const join = filterQuery ? `${filterQuery}&` : "?";
  return (
    <div className="flex items-center gap-2" data-testid="export-buttons">
      <span
        className="text-xs text-slate-500"
        title={`An export stops at ${maxRows.toLocaleString("en")} rows and says so at its end`}
      >
        Export filter
      </span>
      {EXPORT_FORMATS.map((format) => (
        <a
          key={format}
          href={`${apiUrl(api.exportRecords, {})}${join}format=${format}`}
          download
          className={buttonClass({ variant: "secondary", size: "sm", className: "px-2.5" })}
        >
          {format.toUpperCase()}
        </a>
      ))}
    </div>
  );
}
