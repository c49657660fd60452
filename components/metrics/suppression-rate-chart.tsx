"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { MIN_RATE_CALLS, type SeriesPoint } from "@/lib/metrics/metrics-report";
import { CHART_HEIGHT, LINE_X_PADDING, TICK } from "./chart-frame";
import { formatStep, NOT_RECORDED } from "./metric-format";

const COLOR = "#059669";

type Datum = { step: string; rate: number | null; uncertain: number | null; calls: number | null };
type DotProps = { cx?: number | null; cy?: number | null; index?: number; payload?: Datum };

/**
 * A step's rate is a point; a step with fewer than MIN_RATE_CALLS calls is a hollow point off the
 * line (the line breaks there), so three calls never draw as a spike like three thousand.
 */
function dot(kind: "solid" | "hollow") {
  function SeriesDot({ cx, cy, index, payload }: DotProps) {
    if (cx == null || cy == null) return <g key={`${kind}-${index}`} />;
    return kind === "solid" ? (
      <circle key={`${kind}-${index}`} cx={cx} cy={cy} r={2.5} fill={COLOR} data-calls={payload?.calls ?? undefined} />
    ) : (
      <circle
        key={`${kind}-${index}`}
        cx={cx}
        cy={cy}
        r={4}
        fill="#ffffff"
        stroke={COLOR}
        strokeWidth={1.5}
        strokeDasharray="2 1.5"
        data-small-sample="true"
        data-calls={payload?.calls ?? undefined}
      />
    );
  }
  return SeriesDot;
}

export function SuppressionRateChart({ series, stepMs }: { series: SeriesPoint[]; stepMs: number }) {
  const data: Datum[] = series.map((p) => {
    const rate = p.suppressionRate === null ? null : Math.round(p.suppressionRate * 1000) / 10;
    return {
      step: formatStep(p.at, stepMs),
      rate: p.smallSample ? null : rate,
      uncertain: p.smallSample ? rate : null,
      calls: p.calls,
    };
  });
  const recorded = series.some((p) => p.replaysServed !== null);
  const small = series.filter((p) => p.smallSample).length;
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-4" data-testid="suppression-chart">
      <figcaption className="mb-2 text-sm font-medium text-slate-700">
        Suppression rate (replays + rejections) / all calls
      </figcaption>
      {recorded ? (
        <>
          <div className={CHART_HEIGHT}>
            <ResponsiveContainer width="100%" height="100%">
              <LineChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
                <XAxis
                  dataKey="step"
                  tick={TICK}
                  interval="preserveStartEnd"
                  minTickGap={16}
                  padding={LINE_X_PADDING}
                />
                <YAxis tick={TICK} unit="%" domain={[0, "auto"]} width={44} />
                <Tooltip
                  formatter={(value, name, item) => {
                    const calls = (item.payload as Datum).calls ?? 0;
                    const label =
                      name === "uncertain"
                        ? `suppression rate, ${calls} call${calls === 1 ? "" : "s"}: too few to read`
                        : `suppression rate, ${calls.toLocaleString("en")} calls`;
                    return [`${String(value)}%`, label];
                  }}
                />
                <Line
                  type="monotone"
                  dataKey="rate"
                  stroke={COLOR}
                  strokeWidth={2}
                  dot={dot("solid")}
                  activeDot={{ r: 4 }}
                  connectNulls={false}
                  isAnimationActive={false}
                />
                <Line
                  type="monotone"
                  dataKey="uncertain"
                  stroke="none"
                  dot={dot("hollow")}
                  activeDot={{ r: 5, fill: "#ffffff", stroke: COLOR }}
                  connectNulls={false}
                  isAnimationActive={false}
                  legendType="none"
                />
              </LineChart>
            </ResponsiveContainer>
          </div>
          <p className="mt-1 text-xs text-slate-500" data-testid="suppression-small-note">
            <svg width="10" height="10" className="mr-1 inline-block align-[-1px]" aria-hidden="true">
              <circle cx="5" cy="5" r="3.5" fill="#ffffff" stroke={COLOR} strokeWidth="1.5" strokeDasharray="2 1.5" />
            </svg>
            fewer than {MIN_RATE_CALLS} calls in the step: uncertain, off the line
            {small > 0 ? ` (${small} step${small === 1 ? "" : "s"})` : ""}
          </p>
        </>
      ) : (
        <p className="flex h-44 md:h-60 items-center justify-center text-sm italic text-slate-500">
          {NOT_RECORDED}: the writers of this selection record no replay or rejection events
        </p>
      )}
    </figure>
  );
}
