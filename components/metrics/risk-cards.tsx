import type { ReactNode } from "react";
import { MIN_RATE_CALLS } from "@/lib/metrics/metrics-report";
import { formatCount, formatMs, formatRate, formatRatio, NOT_RECORDED } from "./metric-format";
import { unbackedRow as unbacked, type RiskRow } from "./risk-row";
import { VerifiedUpstreamNote } from "./verified-upstream-note";

/** The row's key figures after its stuck count, in one sentence: what a phone shows before anything is opened. */
function keyFigures(r: RiskRow): string {
  const parts = [`${formatCount(r.executions)} executions`, `${formatCount(r.completed)} completed`];
  if (!r.eventsRecorded) parts.push(`events ${NOT_RECORDED}`);
  else if (r.suppressionRate !== null)
    parts.push(`${formatRate(r.suppressionRate)} suppressed of ${formatCount(r.suppressionCalls)}`);
  return ` · ${parts.join(" · ")}`;
}

/** No claim, completion, stuck claim or console resolution in the window. */
function idle(r: RiskRow): boolean {
  return r.executions + r.completed + r.stuckNow + r.resolvedByOperator + r.resolvedByReconciler === 0;
}

/** The rest of the table's columns, for the row opened (with the counts the summary line may have put in words). */
function details(r: RiskRow): [string, string][] {
  return [
    ["Stuck now", r.stuckNow.toLocaleString("en")],
    ["Executions", formatCount(r.executions)],
    ["Completed", formatCount(r.completed)],
    ["Outcome unknown", formatCount(r.outcomeUnknown)],
    ["Replays", formatCount(r.replaysServed)],
    ["Rejected", formatCount(r.inFlightRejected)],
    [
      "Suppression",
      `${formatRate(r.suppressionRate, r.eventsRecorded ? "—" : NOT_RECORDED)}${r.smallSample ? ` (fewer than ${MIN_RATE_CALLS} calls)` : ""}`,
    ],
    ["Writer p50 / p95", `${formatMs(r.completeP50Ms)} / ${formatMs(r.completeP95Ms)}`],
    [
      "By operators",
      `${r.resolvedByOperator.toLocaleString("en")}${r.resolvedByOperator > 0 ? ` (${formatMs(r.operatorResolveP50Ms)} / ${formatMs(r.operatorResolveP95Ms)})` : ""}`,
    ],
    [
      "By reconciler",
      `${r.resolvedByReconciler.toLocaleString("en")}${r.resolvedByReconciler > 0 ? ` (${formatMs(r.reconcilerResolveP50Ms)} / ${formatMs(r.reconcilerResolveP95Ms)})` : ""}`,
    ],
    ["Effects/op", formatRatio(r.sideEffectsPerOperation)],
  ];
}

/**
 * The per-tool (or per-tenant) figures on a phone: each row in three or four lines — its name and
 * what marks it, its key figures, what its upstream counted when verified — and the other columns
 * behind the key figures, opened on a tap. The table (md and up) shows every column at once.
 */
export function RiskCards({
  rows,
  caption,
  note,
  testId,
}: {
  rows: RiskRow[];
  caption: string;
  note: ReactNode;
  testId: string;
}) {
  return (
    <section
      className="rounded-lg border border-slate-200 bg-white md:hidden"
      aria-label={caption}
      data-testid={testId}
    >
      <h2 className="px-3 pt-2 text-sm font-medium text-slate-700">{caption}</h2>
      <div className="px-3">{note}</div>
      <ul className="divide-y divide-slate-100">
        {rows.map((r) => (
          <li
            key={r.id}
            className={`px-3 py-1.5 text-xs ${unbacked(r) ? "bg-amber-50" : ""}`}
            data-row={r.id}
            data-risk={r.stuckNow + (r.outcomeUnknown ?? 0) > 0 ? "high" : "low"}
          >
            <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
              {r.href ? (
                <a
                  className={`font-mono underline-offset-2 hover:underline ${r.muted ? "italic text-slate-500" : "text-slate-900"}`}
                  href={r.href}
                >
                  {r.label}
                </a>
              ) : (
                <span className="font-mono">{r.label}</span>
              )}
              {r.tool ? (
                <span className="text-[11px] text-slate-500">
                  idempotentHint{" "}
                  {r.tool.listedBy.length === 0
                    ? "not listed"
                    : String(r.tool.declaredIdempotentHint ?? "not declared")}
                </span>
              ) : null}
              {r.tool && !r.tool.seen ? (
                <span
                  className={`rounded px-1.5 py-px text-[11px] ${unbacked(r) ? "bg-amber-200 text-amber-900" : "bg-slate-100 text-slate-600"}`}
                >
                  never seen
                </span>
              ) : null}
            </div>
            <details className="group">
              <summary className="cursor-pointer tabular-nums text-slate-700" data-testid="card-figures">
                {idle(r) ? (
                  // Every count 0: said in words, so the line stays one line.
                  <>nothing in the window{r.eventsRecorded ? null : ` · events ${NOT_RECORDED}`}</>
                ) : (
                  <>
                    <span className={r.stuckNow > 0 ? "font-semibold text-red-700" : undefined}>
                      {r.stuckNow.toLocaleString("en")} stuck
                    </span>
                    {(r.outcomeUnknown ?? 0) > 0 ? (
                      <span className="font-semibold text-amber-700"> · {formatCount(r.outcomeUnknown)} unknown</span>
                    ) : null}
                    {keyFigures(r)}
                  </>
                )}
              </summary>
              <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 pb-1 tabular-nums">
                {details(r).map(([label, value]) => (
                  <div key={label} className="contents">
                    <dt className="text-slate-500">{label}</dt>
                    <dd className={value === NOT_RECORDED || value === "not reported" ? "italic text-slate-500" : ""}>
                      {value}
                    </dd>
                  </div>
                ))}
              </dl>
            </details>
            {r.upstream ? <VerifiedUpstreamNote upstream={r.upstream} /> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
