"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SeriesPoint } from "@/lib/metrics/metrics-report";
import { formatStep, NOT_RECORDED } from "./metric-format";

/** Share of calls that were repeats answered without a second side effect, per step. */
export function SuppressionRateChart({ series, stepMs }: { series: SeriesPoint[]; stepMs: number }) {
  const data = series.map((p) => ({ step: formatStep(p.at, stepMs), rate: p.suppressionRate === null ? null : Math.round(p.suppressionRate * 1000) / 10 }));
  const recorded = series.some((p) => p.replaysServed !== null);
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-4" data-testid="suppression-chart">
      <figcaption className="mb-2 text-sm font-medium text-slate-700">Suppression rate (replays + rejections) / all calls</figcaption>
      {recorded ? (
        <div className="h-60">
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
              <XAxis dataKey="step" tick={{ fontSize: 11 }} interval="preserveStartEnd" minTickGap={16} />
              <YAxis tick={{ fontSize: 11 }} unit="%" domain={[0, "auto"]} width={44} />
              <Tooltip formatter={(value) => [`${String(value)}%`, "suppression rate"]} />
              <Line type="monotone" dataKey="rate" stroke="#059669" strokeWidth={2} dot={false} connectNulls={false} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </div>
      ) : (
        <p className="flex h-60 items-center justify-center text-sm italic text-slate-500">{NOT_RECORDED}: the writers of this selection record no replay or rejection events</p>
      )}
    </figure>
  );
}
