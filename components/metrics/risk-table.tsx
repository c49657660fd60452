import type { MetricsFigures } from "@/lib/metrics/metrics-report";
import { formatCount, formatMs, formatRate, formatRatio, NOT_RECORDED } from "./metric-format";

export type RiskRow = { id: string; label: string; href: string | null; muted?: boolean } & MetricsFigures;

const thBase = "px-2 py-2 text-xs font-medium uppercase tracking-wide text-slate-500 whitespace-nowrap";
const th = `${thBase} text-right`;
const td = "px-2 py-1.5 text-right tabular-nums whitespace-nowrap";

function Missing({ text }: { text: string }) {
  return <span className="italic text-slate-400" data-missing="true">{text}</span>;
}

function cell(value: string) {
  return value === NOT_RECORDED || value === "not reported" ? <Missing text={value} /> : value;
}

/**
 * Per tool (or tenant) figures, riskiest first: stuck now + outcome unknown, then volume. Event
 * figures of writers that record no events read "not recorded"; side effects without a processor
 * report read "not reported".
 */
export function RiskTable({ rows, caption, firstColumn }: { rows: RiskRow[]; caption: string; firstColumn: string }) {
  if (rows.length === 0) {
    return <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-500">No claims, events or stuck rows in this window.</p>;
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-[13px]" data-testid={`risk-table-${firstColumn}`}>
        <caption className="px-3 pt-3 text-left text-sm font-medium text-slate-700">{caption}</caption>
        <thead className="border-b border-slate-200">
          <tr>
            <th className={`${thBase} text-left`}>{firstColumn}</th>
            <th className={th} title="in_progress past the tool's threshold, now">Stuck now</th>
            <th className={th} title="outcome unknown: processor timeouts reported to the caller">Unknown</th>
            <th className={th} title="claims">Executions</th>
            <th className={th}>Completed</th>
            <th className={th}>Replays</th>
            <th className={th} title="in-flight rejections: repeats while the first call ran">Rejected</th>
            <th className={th} title="(replays + rejections) / (executions + replays + rejections)">Suppression</th>
            <th className={th} title="by operators / by the reconciler">Resolved op/rec</th>
            <th className={th} title="time to complete, to within 9%">p50 / p95</th>
            <th className={th} title="side effects the processor performed per operation (reference)">Effects/op</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.id} data-row={r.id} data-risk={r.stuckNow + (r.outcomeUnknown ?? 0) > 0 ? "high" : "low"}>
              <td className="px-2 py-1.5 text-left font-mono text-xs">
                {r.href ? (
                  <a className={`underline-offset-2 hover:underline ${r.muted ? "italic text-slate-500" : "text-slate-900"}`} href={r.href}>
                    {r.label}
                  </a>
                ) : (
                  r.label
                )}
              </td>
              <td className={`${td} ${r.stuckNow > 0 ? "font-semibold text-red-700" : ""}`}>{r.stuckNow.toLocaleString("en")}</td>
              <td className={`${td} ${(r.outcomeUnknown ?? 0) > 0 ? "font-semibold text-amber-700" : ""}`}>{cell(formatCount(r.outcomeUnknown))}</td>
              <td className={td}>{formatCount(r.executions)}</td>
              <td className={td}>{formatCount(r.completed)}</td>
              <td className={td}>{cell(formatCount(r.replaysServed))}</td>
              <td className={td}>{cell(formatCount(r.inFlightRejected))}</td>
              <td className={td}>{cell(formatRate(r.suppressionRate, r.eventsRecorded ? "—" : NOT_RECORDED))}</td>
              <td className={td}>
                {r.resolvedByOperator.toLocaleString("en")} / {r.resolvedByReconciler.toLocaleString("en")}
              </td>
              <td className={td}>
                {formatMs(r.completeP50Ms)} / {formatMs(r.completeP95Ms)}
              </td>
              <td className={td}>{cell(formatRatio(r.sideEffectsPerOperation))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
