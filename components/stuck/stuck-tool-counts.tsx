import { Link } from "@/components/ui/link";
import { formatAge } from "@/lib/format/relative-time";
import { serializeRecordsParams, UNRECORDED_TOOL } from "@/lib/records/list-filters";
import type { StuckToolCount } from "@/lib/records/stuck-claims";
import { PhoneDisclosure } from "@/components/ui/phone-disclosure";

type Props = { counts: StuckToolCount[]; tenant: string | null; activeTool: string | null; defaultThreshold: string };

/** Stuck claims per tool with the threshold that made them stuck; a card links to that tool's claims. */
export function StuckToolCounts({ counts, tenant, activeTool, defaultThreshold }: Props) {
  return (
    <section aria-label="Stuck claims by tool" className="mb-4">
      {/* Below sm folded, and one line per tool when opened: the claims below must reach a phone's first screen. */}
      <PhoneDisclosure
        id="stuck-tool-counts-panel"
        from="sm"
        label={`Counts by tool (${counts.length})`}
        buttonTestId="stuck-tool-counts-toggle"
      >
        <ul
          className="grid grid-cols-1 divide-y divide-slate-200 overflow-hidden rounded-lg border border-slate-200 bg-white sm:grid-cols-2 sm:gap-3 sm:divide-y-0 sm:overflow-visible sm:rounded-none sm:border-0 sm:bg-transparent xl:grid-cols-4"
          data-testid="stuck-tool-counts"
        >
          {counts.map((entry) => {
            const toolParam = entry.tool ?? UNRECORDED_TOOL;
            const active = activeTool === toolParam;
            const href = `/stuck${serializeRecordsParams({ tenant, tool: active ? null : toolParam })}`;
            return (
              <li key={toolParam}>
                <Link
                  href={href}
                  data-tool={toolParam}
                  aria-current={active ? "true" : undefined}
                  className={`flex flex-wrap items-baseline gap-x-2 px-3 py-1.5 hover:bg-slate-50 sm:block sm:rounded-lg sm:border sm:bg-white sm:p-3 sm:hover:border-slate-400 ${active ? "bg-slate-100 sm:border-slate-900 sm:ring-1 sm:ring-slate-900" : "sm:border-slate-200"}`}
                >
                  {/* display: contents below sm, so the tool, its threshold and its count share a line; a warning takes the next. */}
                  <div className="contents sm:flex sm:items-baseline sm:justify-between sm:gap-2">
                    <span
                      className={`order-1 min-w-0 flex-1 font-mono text-sm [overflow-wrap:anywhere] sm:flex-initial sm:truncate ${entry.tool === null ? "italic text-slate-500" : ""}`}
                    >
                      {entry.tool ?? "unrecorded"}
                    </span>
                    <span
                      className={`order-3 w-8 text-right text-base font-semibold tabular-nums sm:w-auto sm:text-2xl ${entry.count > 0 ? "text-red-700" : "text-slate-500"}`}
                      data-testid="stuck-tool-count"
                    >
                      {entry.count.toLocaleString("en")}
                    </span>
                  </div>
                  <div className="order-2 shrink-0 text-xs text-slate-500 sm:mt-1">
                    <span className="hidden sm:inline">stuck </span>after {entry.threshold}
                    {entry.thresholdSource === "default" ? " (default)" : ""}
                    {entry.oldestAgeMs !== null ? (
                      <span className="hidden sm:inline">
                        {` · oldest ${formatAge(new Date(0), new Date(entry.oldestAgeMs))}`}
                      </span>
                    ) : null}
                  </div>
                  {entry.processor === null ? (
                    <div className="order-4 basis-full text-xs text-amber-700 sm:mt-1">
                      no processor to ask
                      <span className="hidden sm:inline">
                        :{" "}
                        {entry.tool === null
                          ? "only an admin’s forced release clears these"
                          : "configure one in idem.config.json, or an admin forces a release"}
                      </span>
                    </div>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ul>
        <p className="mt-2 text-xs text-slate-500">
          A claim is stuck when it is still in_progress past its tool&apos;s{" "}
          <span className="font-mono">stuckAfter</span> (default {defaultThreshold}, in idem.config.json). The threshold
          must exceed the longest a processor call can take, or a call still running shows up here — and releasing it
          could let a retry charge twice.
        </p>
      </PhoneDisclosure>
    </section>
  );
}
