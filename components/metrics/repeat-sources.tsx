import { Link } from "@/components/ui/link";
import { RepeatDelayBar, RepeatDelayLegend } from "@/components/repeats/repeat-delay-bars";
import { StaticTable, type StaticColumn } from "@/components/ui/static-table";
import { duplicatesHref } from "@/lib/duplicates/duplicates-params";
import type { MetricsReport } from "@/lib/metrics/metrics-report";
import { REPEAT_DELAY_BANDS } from "@/lib/repeats/repeat-delay-band";
import { medianText } from "@/lib/repeats/repeat-delay-text";
import type { BandCounts } from "@/lib/repeats/repeat-figures";

type ToolRow = {
  tool: string;
  duplicatesThrough: number | null;
  argumentsMismatches: number | null;
  repeats: number;
  bands: BandCounts | null;
  median: string;
  busiestHost: string | null;
};

const missing = (text: string) => <span className="italic text-slate-500">{text}</span>;
const count = (n: number | null) => (n === null ? missing("not recorded") : n.toLocaleString("en"));

function toolColumns(window: MetricsReport["window"]): StaticColumn<ToolRow>[] {
  return [
    { id: "tool", header: "Tool", cellClassName: "font-mono text-xs", cell: (r) => r.tool },
    {
      id: "duplicates",
      header: "Duplicates through",
      cellClassName: "tabular-nums",
      cell: (r) =>
        r.duplicatesThrough !== null && r.duplicatesThrough > 0 ? (
          <Link
            href={duplicatesHref({ window, tool: r.tool })}
            className="font-medium text-red-700 underline underline-offset-2"
          >
            {count(r.duplicatesThrough)}
          </Link>
        ) : (
          count(r.duplicatesThrough)
        ),
    },
    {
      id: "mismatches",
      header: "Arguments refused",
      cellClassName: "tabular-nums",
      cell: (r) => count(r.argumentsMismatches),
    },
    {
      id: "repeats",
      header: "Repeats by delay",
      cellClassName: "min-w-48",
      cell: (r) =>
        r.bands === null ? (
          missing("none recorded")
        ) : (
          <div>
            <RepeatDelayBar bands={r.bands} label={`${r.tool}: repeats by delay after the first call`} />
            <span className="mt-0.5 block text-xs tabular-nums text-slate-600">
              {r.repeats.toLocaleString("en")} · {REPEAT_DELAY_BANDS.map((b) => r.bands![b.band]).join(" / ")}
            </span>
          </div>
        ),
    },
    { id: "median", header: "Median delay", cellClassName: "text-xs", cell: (r) => r.median },
    { id: "host", header: "Most repeats from", cellClassName: "text-xs", cell: (r) => r.busiestHost ?? missing("—") },
  ];
}

type HostRow = MetricsReport["repeats"]["byClient"][number];
const hostColumns: StaticColumn<HostRow>[] = [
  { id: "host", header: "Host", cellClassName: "text-xs", cell: (h) => h.client ?? missing("not recorded") },
  { id: "repeats", header: "Repeats", cellClassName: "tabular-nums", cell: (h) => h.repeats.toLocaleString("en") },
  {
    id: "bands",
    header: "By delay",
    cellClassName: "min-w-48",
    cell: (h) => <RepeatDelayBar bands={h.bands} label={`${h.client ?? "unrecorded host"}: repeats by delay`} />,
  },
  { id: "median", header: "How fast", cellClassName: "text-xs", cell: (h) => medianText(h.median) },
];

/**
 * Where repeats come from (the duplicate scan's roll-ups): per tool the duplicates that got
 * through, the arguments refused and the repeats by delay band; per host who repeats most and how fast.
 */
export function RepeatSources({ report }: { report: MetricsReport }) {
  const repeatsOf = new Map(report.repeats.byTool.map((t) => [t.tool, t]));
  const rows: ToolRow[] = report.tools.flatMap((t) => {
    if (t.tool === null) return [];
    const r = repeatsOf.get(t.tool);
    return [
      {
        tool: t.tool,
        duplicatesThrough: t.duplicatesThrough,
        argumentsMismatches: t.argumentsMismatches,
        repeats: r?.repeats ?? 0,
        bands: r && r.repeats > 0 ? r.bands : null,
        median: r ? medianText(r.median) : "—",
        busiestHost: r?.byClient[0] ? (r.byClient[0].client ?? "not recorded") : null,
      },
    ];
  });
  const scanned = report.repeats.scannedThrough;
  return (
    <section aria-labelledby="repeat-sources" className="mt-6" data-testid="repeat-sources">
      <h2 id="repeat-sources" className="text-sm font-semibold text-slate-800">
        Where repeats come from
      </h2>
      <p className="mb-2 mt-1 text-xs text-slate-600">
        Each repeat a writer recorded, by its delay after the first call. Whole hours from{" "}
        {report.repeats.since.slice(11, 16)} UTC,{" "}
        {scanned === null
          ? "but the scan has not run yet: nothing is counted"
          : `counted through ${scanned.slice(11, 16)} UTC`}
        .
      </p>
      <RepeatDelayLegend bands={everyTool(report.repeats.byTool)} />
      <div className="mt-2">
        <StaticTable
          columns={toolColumns(report.window)}
          rows={rows}
          getRowId={(r) => r.tool}
          testId="repeat-sources-tools"
          // On a phone a tool with nothing to show is named once below, not given a six-line card of "not recorded".
          rowData={(r) => ({ "data-tool": r.tool, className: empty(r) ? "max-md:hidden!" : undefined })}
        />
        {rows.some(empty) ? (
          <p className="mt-1 text-xs text-slate-500 md:hidden" data-testid="repeat-sources-empty">
            Nothing recorded for{" "}
            {rows
              .filter(empty)
              .map((r) => r.tool)
              .join(", ")}
            .
          </p>
        ) : null}
      </div>
      {report.repeats.byClient.length > 0 ? (
        <div className="mt-3">
          <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Per host</h3>
          <StaticTable
            columns={hostColumns}
            rows={report.repeats.byClient}
            getRowId={(h) => h.client ?? ""}
            testId="repeat-sources-hosts"
            rowData={(h) => ({ "data-host": h.client ?? "" })}
          />
        </div>
      ) : null}
    </section>
  );
}

/** A tool with no duplicates, no refusals and no repeats to show: each of its cells would say so. */
function empty(r: ToolRow): boolean {
  return r.bands === null && !r.duplicatesThrough && !r.argumentsMismatches;
}

/** The legend's counts: every tool's together, so the key above the table also gives the totals. */
function everyTool(tools: { bands: BandCounts }[]): BandCounts {
  return Object.fromEntries(
    REPEAT_DELAY_BANDS.map((b) => [b.band, tools.reduce((sum, t) => sum + t.bands[b.band], 0)]),
  ) as BandCounts;
}
