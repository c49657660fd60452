import { Link } from "@/components/ui/link";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { formatUtcTime } from "@/lib/duplicates/duplicate-text";
import { duplicatesHref, type DuplicatesQuery } from "@/lib/duplicates/duplicates-params";
import type { DuplicatesReport } from "@/lib/duplicates/duplicates-report";
import { DuplicateToolCounts } from "./duplicate-tool-counts";
import { DuplicatesFilterForm } from "./duplicates-filter-form";
import { DuplicatesTable } from "./duplicates-table";
import { MismatchTable } from "./mismatch-table";
import { Card } from "@/components/ui/card";

type Props = { report: DuplicatesReport; query: DuplicatesQuery; tenantChoices: string[] | null };

const WINDOW_WORDS = { "1h": "hour", "24h": "24 h", "48h": "48 h" } as const;

/** How far the scan has read: the claims younger than that are not counted yet. */
function CountedThrough({ report }: { report: DuplicatesReport }) {
  return (
    <p className="mb-4 text-xs text-slate-600" data-testid="duplicates-scanned-through">
      {report.scannedThrough === null ? (
        <>
          The duplicate scan has not run yet: nothing is counted. It runs in every console server&apos;s background
          round and in <code className="font-mono">idem rollup</code>.
        </>
      ) : (
        <>
          Counted through{" "}
          <time dateTime={report.scannedThrough} className="font-medium tabular-nums">
            {formatUtcTime(report.scannedThrough, report.until)}
          </time>
          : the scan reads claims once they are five minutes old, so younger ones are not counted yet.
        </>
      )}
    </p>
  );
}

/** The duplicates page below its header: filters, how far the scan has read, per-tool counts, the list, the pager. */
export function DuplicatesView({ report, query, tenantChoices }: Props) {
  const values = { window: query.window, tool: query.tool, tenant: query.tenant };
  const atNewest = query.cursor === null;
  const filtered = query.tool !== null || query.tenant !== null;
  const shown = report.entries.length;
  return (
    <>
      <DuplicatesFilterForm values={values} tools={report.byTool.map((t) => t.tool)} tenantChoices={tenantChoices} />
      <CountedThrough report={report} />
      <DuplicateToolCounts byTool={report.byTool} window={query.window} tenant={query.tenant} activeTool={query.tool} />
      {shown > 0 ? (
        <DuplicatesTable entries={report.entries} now={report.until} />
      ) : (
        <Card className="p-8 text-center" data-testid="duplicates-empty">
          <p className="text-sm font-medium text-slate-800">
            {!atNewest
              ? "No older duplicates."
              : `No duplicates got through in the last ${WINDOW_WORDS[query.window]}${filtered ? " for this filter" : ""}.`}
          </p>
          <p className="mt-1 text-sm text-slate-500">
            {report.scannedThrough === null
              ? "The scan has not run yet."
              : `Counted through ${formatUtcTime(report.scannedThrough, report.until)}; claims since then are not scanned yet.`}{" "}
            {filtered || !atNewest ? (
              <Link href={duplicatesHref({ window: query.window })} className="underline">
                Show every tool and tenant
              </Link>
            ) : null}
          </p>
        </Card>
      )}
      <KeysetPager
        newest={atNewest ? null : duplicatesHref({ ...values, limit: query.limit })}
        older={report.nextCursor ? duplicatesHref({ ...values, limit: query.limit, cursor: report.nextCursor }) : null}
        summary={`${shown.toLocaleString("en")} duplicate${shown === 1 ? "" : "s"} on this page${atNewest ? ", starting at the newest" : ""}`}
        testId="duplicates-pager"
      />
      <MismatchTable entries={report.mismatches} now={report.until} />
    </>
  );
}
