import Link from "next/link";
import { formatAge } from "@/lib/format/relative-time";
import { serializeRecordsParams, UNRECORDED_TOOL } from "@/lib/records/list-filters";
import type { StuckToolCount } from "@/lib/records/stuck-claims";

type Props = { counts: StuckToolCount[]; tenant: string | null; activeTool: string | null; defaultThreshold: string };

/** Stuck claims per tool with the threshold that made them stuck; a card links to that tool's claims. */
export function StuckToolCounts({ counts, tenant, activeTool, defaultThreshold }: Props) {
  return (
    <section aria-label="Stuck claims by tool" className="mb-4">
      <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4" data-testid="stuck-tool-counts">
        {counts.map((entry) => {
          const toolParam = entry.tool ?? UNRECORDED_TOOL;
          const active = activeTool === toolParam;
          const href = `/stuck${serializeRecordsParams({ tenant, tool: active ? null : toolParam })}`;
          return (
            <li key={toolParam}>
              <Link
                href={href}
                data-tool={toolParam}
                className={`block rounded-lg border bg-white p-3 hover:border-slate-400 ${active ? "border-slate-900 ring-1 ring-slate-900" : "border-slate-200"}`}
              >
                <div className="flex items-baseline justify-between gap-2">
                  <span className={`truncate font-mono text-sm ${entry.tool === null ? "italic text-slate-500" : ""}`}>
                    {entry.tool ?? "unrecorded"}
                  </span>
                  <span
                    className={`text-2xl font-semibold tabular-nums ${entry.count > 0 ? "text-red-700" : "text-slate-500"}`}
                    data-testid="stuck-tool-count"
                  >
                    {entry.count.toLocaleString("en")}
                  </span>
                </div>
                <div className="mt-1 text-xs text-slate-500">
                  stuck after {entry.threshold}
                  {entry.thresholdSource === "default" ? " (default)" : ""}
                  {entry.oldestAgeMs !== null ? ` · oldest ${formatAge(new Date(0), new Date(entry.oldestAgeMs))}` : ""}
                </div>
                {entry.processor === null ? (
                  <div className="mt-1 text-xs text-amber-700">
                    no processor to ask:{" "}
                    {entry.tool === null
                      ? "only an admin’s forced release clears these"
                      : "configure one in idem.config.json, or an admin forces a release"}
                  </div>
                ) : null}
              </Link>
            </li>
          );
        })}
      </ul>
      <p className="mt-2 text-xs text-slate-500">
        A claim is stuck when it is still in_progress past its tool&apos;s <span className="font-mono">stuckAfter</span>{" "}
        (default {defaultThreshold}, in idem.config.json). The threshold must exceed the longest a processor call can
        take, or a call still running shows up here — and releasing it could let a retry charge twice.
      </p>
    </section>
  );
}
