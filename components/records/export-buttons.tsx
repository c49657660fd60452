import { EXPORT_FORMATS } from "@/lib/records/records-search-params";
import { api } from "@/components/ui/api-endpoints";
import { apiUrl } from "@/lib/api/api-url";
import { DownloadLink } from "@/components/ui/download-link";

/**
 * Downloads of the current filter (not just this page), streamed by the API and bounded. A large one
 * takes seconds: DownloadLink says how far it got.
 */
export function ExportButtons({ filterQuery, maxRows }: { filterQuery: string; maxRows: number }) {
  const join = filterQuery ? `${filterQuery}&` : "?";
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="export-buttons">
      <span
        className="text-xs text-slate-500"
        title={`An export stops at ${maxRows.toLocaleString("en")} rows and says so at its end`}
      >
        Export filter
      </span>
      {EXPORT_FORMATS.map((format) => (
        <DownloadLink
          key={format}
          href={`${apiUrl(api.exportRecords, {})}${join}format=${format}`}
          label={format.toUpperCase()}
          what={`${format.toUpperCase()} export`}
          fallbackName={`idem-records.${format}`}
          testId={`export-${format}`}
        />
      ))}
    </div>
  );
}
