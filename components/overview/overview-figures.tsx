import type { OverviewCounts } from "@/lib/records/overview-counts";
import { formatAge } from "@/lib/format/relative-time";

export function OverviewFigures({ counts, now }: { counts: OverviewCounts; now: Date }) {
  const figures: { label: string; value: string; hint: string; alarming?: boolean; href?: string }[] = [
    {
      label: "Records",
      value: `${counts.recordsIsEstimate ? "≈ " : ""}${counts.records.toLocaleString("en")}${counts.recordsAtLeast ? "+" : ""}`,
      hint: counts.recordsIsEstimate
        ? "planner estimate from fresh statistics"
        : counts.recordsAtLeast
          ? "at least: statistics are stale, counting stopped"
          : "exact count",
    },
    { label: "In progress", value: counts.inProgress.toLocaleString("en"), hint: "claimed, no outcome stored yet" },
    {
      label: "Stuck",
      value: counts.stuck.toLocaleString("en"),
      hint: "in progress past the tool's threshold",
      alarming: counts.stuck > 0,
      href: "/stuck",
    },
    {
      label: "Oldest in progress",
      value: counts.oldestInProgressAt ? formatAge(counts.oldestInProgressAt, now) : "—",
      hint: counts.oldestInProgressAt ? counts.oldestInProgressAt.toISOString() : "no claim in flight",
    },
    {
      label: "Newest record",
      value: counts.newestRecordAt ? `${formatAge(counts.newestRecordAt, now)} ago` : "—",
      hint: counts.newestRecordAt ? counts.newestRecordAt.toISOString() : "the table is empty",
    },
  ];
  return (
    <dl className="grid grid-cols-2 gap-4 lg:grid-cols-5">
      {figures.map((f) => (
        <div key={f.label} className="rounded-lg border border-slate-200 bg-white p-4">
          <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{f.label}</dt>
          <dd
            className={`mt-1 text-2xl font-semibold tabular-nums ${f.alarming ? "text-red-700" : ""}`}
            title={f.hint}
            data-testid={`overview-${f.label.toLowerCase().replace(/ /g, "-")}`}
          >
            {f.href ? (
              <a href={f.href} className="hover:underline">
                {f.value}
              </a>
            ) : (
              f.value
            )}
          </dd>
          <dd className="mt-0.5 [overflow-wrap:anywhere] text-xs text-slate-500">{f.hint}</dd>
        </div>
      ))}
    </dl>
  );
}
