import { Link } from "@/components/ui/link";
import { duplicatesHref, type DuplicatesWindow } from "@/lib/duplicates/duplicates-params";
import type { DuplicatesReport } from "@/lib/duplicates/duplicates-report";

type Props = {
  byTool: DuplicatesReport["byTool"];
  window: DuplicatesWindow;
  tenant: string | null;
  activeTool: string | null;
};

/** Duplicates per tool over the window; "not recorded" for a tool whose writer records no arguments hash. A card filters by its tool. */
export function DuplicateToolCounts({ byTool, window, tenant, activeTool }: Props) {
  return (
    <section aria-labelledby="duplicates-by-tool" className="mb-4">
      <h2 id="duplicates-by-tool" className="mb-2 text-sm font-semibold text-slate-800">
        Per tool
      </h2>
      {byTool.length > 0 ? (
        <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4" data-testid="duplicate-tool-counts">
          {byTool.map((entry) => {
            const active = activeTool === entry.tool;
            return (
              <li key={entry.tool}>
                <Link
                  href={duplicatesHref({ window, tenant, tool: active ? null : entry.tool })}
                  data-tool={entry.tool}
                  aria-current={active ? "true" : undefined}
                  className={`block h-full rounded-lg border bg-white p-3 hover:border-slate-400 ${active ? "border-slate-900 ring-1 ring-slate-900" : "border-slate-200"}`}
                >
                  <div className="flex items-baseline justify-between gap-2">
                    <span className="truncate font-mono text-sm" title={entry.tool}>
                      {entry.tool}
                    </span>
                    {entry.businessKey ? (
                      <span className="text-sm italic text-slate-500" data-testid="duplicate-tool-count">
                        business key
                      </span>
                    ) : entry.duplicates === null ? (
                      <span className="text-sm italic text-slate-500" data-testid="duplicate-tool-count">
                        not recorded
                      </span>
                    ) : (
                      <span
                        className={`text-2xl font-semibold tabular-nums ${entry.duplicates > 0 ? "text-red-700" : "text-slate-500"}`}
                        data-testid="duplicate-tool-count"
                      >
                        {entry.duplicates.toLocaleString("en")}
                      </span>
                    )}
                  </div>
                  <div className="mt-1 text-xs text-slate-500">
                    {entry.businessKey
                      ? "keyed by a business key (idem.config.json): two keys are two operations, never paired"
                      : entry.duplicates === null
                        ? "its writer records no arguments hash"
                        : `of ${entry.hashedClaims.toLocaleString("en")} scanned claim${entry.hashedClaims === 1 ? "" : "s"} with an arguments hash`}
                  </div>
                  {entry.argumentsMismatches !== null && entry.argumentsMismatches > 0 ? (
                    <div className="mt-1 text-xs font-medium text-amber-800" data-testid="duplicate-tool-mismatches">
                      {entry.argumentsMismatches.toLocaleString("en")} refused for other arguments under a reused key
                    </div>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">No tool has scanned claims in this window.</p>
      )}
      <p className="mt-2 text-xs text-slate-500">
        Tools not listed record no arguments hash: not recorded. Only writers that store{" "}
        <span className="font-mono">arguments_sha256</span> (idem-guard, in both languages) can be checked; tools keyed
        by a business key are not scanned.
      </p>
    </section>
  );
}
