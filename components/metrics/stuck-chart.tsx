"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { SeriesPoint } from "@/lib/metrics/metrics-report";
import { CHART_HEIGHT, LINE_X_PADDING, TICK } from "./chart-frame";
import { formatStep } from "./metric-format";

const COLOR = "#b91c1c";

/**
 * Claims stuck at the end of each step, as a lower bound (stuck-series.ts): the claims still
 * in_progress now and those the console resolved since are known; a claim its own writer completed
 * late is not, so the line may sit below the truth, never above it.
 */
export function StuckChart({ series, stepMs }: { series: SeriesPoint[]; stepMs: number }) {
  const data = series.map((p) => ({ step: formatStep(p.at, stepMs), stuck: p.stuckAtEnd }));
  const last = series.at(-1)?.stuckAtEnd ?? 0;
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-4" data-testid="stuck-chart">
      <figcaption className="mb-2 text-sm font-medium text-slate-700">
        Stuck claims at each step’s end{" "}
        <span className="text-xs font-normal text-slate-500">
          (at least: claims still in progress, or resolved by the console later)
        </span>
      </figcaption>
      <div className={CHART_HEIGHT}>
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="step" tick={TICK} interval="preserveStartEnd" minTickGap={16} padding={LINE_X_PADDING} />
            <YAxis tick={TICK} allowDecimals={false} width={44} domain={[0, "auto"]} />
            <Tooltip formatter={(value) => [`≥ ${String(value)}`, "stuck at the step’s end"]} />
            <Line
              type="linear"
              dataKey="stuck"
              stroke={COLOR}
              strokeWidth={2}
              dot={{ r: 2, fill: COLOR }}
              activeDot={{ r: 4 }}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <p className="mt-1 text-xs text-slate-500" data-testid="stuck-chart-note">
        A claim its writer completed after it had become stuck is not counted. The last point is now:{" "}
        {last.toLocaleString("en")}, as Stuck now.
      </p>
    </figure>
  );
}
