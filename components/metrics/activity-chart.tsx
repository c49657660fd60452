"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SeriesPoint } from "@/lib/metrics/metrics-report";
import { CHART_HEIGHT, TICK } from "./chart-frame";
import { formatStep } from "./metric-format";

/** Executions beside the repeats that were suppressed (replays, in-flight rejections), per step. */
export function ActivityChart({ series, stepMs }: { series: SeriesPoint[]; stepMs: number }) {
  const data = series.map((p) => ({
    step: formatStep(p.at, stepMs),
    executions: p.executions,
    replays: p.replaysServed,
    rejections: p.inFlightRejected,
  }));
  const eventsRecorded = series.some((p) => p.replaysServed !== null);
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-4" data-testid="activity-chart">
      <figcaption className="mb-2 text-sm font-medium text-slate-700">
        Executions, replays served and in-flight rejections
        {eventsRecorded ? null : (
          <span className="ml-2 text-xs font-normal italic text-slate-500">
            replays and rejections: not recorded by these writers
          </span>
        )}
      </figcaption>
      <div className={CHART_HEIGHT}>
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="step" tick={TICK} interval="preserveStartEnd" minTickGap={16} />
            <YAxis tick={TICK} allowDecimals={false} width={40} />
            <Tooltip />
            <Legend
              wrapperStyle={{ fontSize: 12 }}
              formatter={(name) => <span className="text-slate-700">{name}</span>}
            />
            <Bar dataKey="executions" name="executions" stackId="calls" fill="#475569" isAnimationActive={false} />
            {eventsRecorded ? (
              <Bar dataKey="replays" name="replays served" stackId="calls" fill="#059669" isAnimationActive={false} />
            ) : null}
            {eventsRecorded ? (
              <Bar
                dataKey="rejections"
                name="in-flight rejections"
                stackId="calls"
                fill="#d97706"
                isAnimationActive={false}
              />
            ) : null}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
