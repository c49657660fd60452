import { MIN_RATE_CALLS, type MetricsReport } from "@/lib/metrics/metrics-report";
import { serializeMetricsParams, UNRECORDED_TOOL } from "@/lib/metrics/metrics-params";
import { ActivityChart } from "./activity-chart";
import { HeadlineFigures } from "./headline-figures";
import { MetricsFilterBar } from "./metrics-filter-bar";
import { RepeatSources } from "./repeat-sources";
import type { RiskRow } from "./risk-row";
import { RiskTable } from "./risk-table";
import { StuckChart } from "./stuck-chart";
import { SuppressionRateChart } from "./suppression-rate-chart";

type Props = { report: MetricsReport; configuredTools: string[]; tenantChoices: string[] | null };

const WINDOW_LABEL = {
  "1h": "last hour, 5-minute steps",
  "24h": "last 24 hours, hourly",
  "48h": "last 48 hours, hourly",
} as const;

export function MetricsView({ report, configuredTools, tenantChoices }: Props) {
  const toolRows: RiskRow[] = report.tools.map((t) => ({
    ...t,
    id: t.tool ?? UNRECORDED_TOOL,
    label: t.tool ?? UNRECORDED_TOOL,
    muted: t.tool === null,
    href: serializeMetricsParams("/metrics", {
      window: report.window,
      tool: t.tool ?? UNRECORDED_TOOL,
      tenant: report.filter.tenant,
    }),
    tool: { seen: t.seen, declaredIdempotentHint: t.declaredIdempotentHint, listedBy: t.listedBy },
    upstream: t.verifiedUpstream,
  }));
  const tenantRows: RiskRow[] = report.tenants.map((t) => ({
    ...t,
    id: t.tenant,
    label: t.tenant,
    href: serializeMetricsParams("/metrics", { window: report.window, tool: report.filter.tool, tenant: t.tenant }),
  }));
  const tools = [...new Set([...configuredTools, ...report.tools.flatMap((t) => (t.tool ? [t.tool] : []))])];
  return (
    <>
      <MetricsFilterBar tools={tools} tenantChoices={tenantChoices} />
      <HeadlineFigures
        figures={report.overall}
        windowLabel={`${WINDOW_LABEL[report.window]}, ${report.from.slice(0, 16).replace("T", " ")} – ${report.to.slice(0, 16).replace("T", " ")} UTC`}
      />
      <div className="mt-4 grid gap-4 lg:grid-cols-2 xl:grid-cols-3">
        <ActivityChart series={report.series} stepMs={report.stepMs} />
        <SuppressionRateChart series={report.series} stepMs={report.stepMs} />
        <StuckChart series={report.series} stepMs={report.stepMs} />
      </div>
      <div className="mt-4 space-y-4">
        <RiskTable
          rows={toolRows}
          caption="Per tool, riskiest first (stuck now + outcome unknown)"
          firstColumn="tool"
        />
        <RiskTable rows={tenantRows} caption="Per tenant" firstColumn="tenant" />
      </div>
      <RepeatSources report={report} />
      <p className="mt-3 text-xs text-slate-500">
        Closed hours from the hourly rollup ({report.source.rolledUpSteps} steps); the open ones from{" "}
        {report.source.sliceMinutes} settled minute slices
        {report.source.countedLiveFrom ? (
          <> and live from the table since {report.source.countedLiveFrom.slice(11, 19)} UTC</>
        ) : null}
        . Claims count in the hour they were made, completions in the hour they completed. Time to complete is the
        writers’ own: claims the console completed or released (a resolve, a bulk apply, the reconciler) count under “by
        operators” and “by reconciler”, with how long they had waited. Durations are to within 9%; a rate over fewer
        than {MIN_RATE_CALLS} calls shows its count and is drawn hollow.
      </p>
    </>
  );
}
