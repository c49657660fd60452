import { MIN_RATE_CALLS, type MetricsFigures } from "@/lib/metrics/metrics-report";
import { formatCount, formatRate, NOT_RECORDED } from "./metric-format";

type Props = { figures: MetricsFigures; windowLabel: string };

/**
 * The figures an engineer asks first: is deduplication working, and is anything stuck or unknown?
 * In that order, so a phone's first screen holds them.
 */
export function HeadlineFigures({ figures, windowLabel }: Props) {
  const items = [
    {
      id: "suppression-rate",
      label: "Suppression rate",
      value: formatRate(figures.suppressionRate),
      // The rate names its sample: 2 of 3 calls and 2,000 of 3,000 are not the same news.
      sample:
        figures.suppressionCalls !== null && figures.suppressionCalls > 0
          ? `of ${formatCount(figures.suppressionCalls)} call${figures.suppressionCalls === 1 ? "" : "s"}`
          : null,
      hint:
        figures.suppressionRate === null
          ? figures.eventsRecorded
            ? "no calls in this window"
            : "no writer records events"
          : figures.smallSample
            ? `fewer than ${MIN_RATE_CALLS} calls: too few to read as a rate`
            : "repeats answered without a second side effect",
    },
    {
      id: "stuck",
      label: "Stuck now",
      value: formatCount(figures.stuckNow),
      hint: "in_progress past the tool's threshold",
    },
    {
      id: "outcome-unknown",
      label: "Outcome unknown",
      value: formatCount(figures.outcomeUnknown),
      hint: "processor timeouts: the caller was told to check",
    },
    {
      id: "executions",
      label: "Executions",
      value: formatCount(figures.executions),
      // Completions are counted when they happen: claims made before the window complete inside it.
      hint: `claims made in the window; ${formatCount(figures.completed)} completions in it, also of earlier claims`,
    },
    {
      id: "replays",
      label: "Replays served",
      value: formatCount(figures.replaysServed),
      hint: "completed calls repeated: stored response returned",
    },
    {
      id: "rejections",
      label: "In-flight rejections",
      value: formatCount(figures.inFlightRejected),
      hint: "repeats while the first call was running",
    },
  ];
  return (
    <section aria-label={`Duplicate suppression, ${windowLabel}`}>
      <dl className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6">
        {items.map((item) => {
          const missing = item.value === NOT_RECORDED;
          const alarming = (item.id === "stuck" || item.id === "outcome-unknown") && !missing && item.value !== "0";
          return (
            <div
              key={item.id}
              className="rounded-lg border border-slate-200 bg-white p-2 md:p-3"
              data-testid={`headline-${item.id}`}
            >
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{item.label}</dt>
              <dd
                className={`mt-1 font-semibold tabular-nums ${missing ? "text-base text-slate-500 italic" : "text-xl md:text-2xl"} ${alarming ? "text-red-700" : ""}`}
              >
                {item.value}
                {"sample" in item && item.sample ? " " : null}
                {"sample" in item && item.sample ? (
                  <span
                    className={`block text-sm font-normal ${figures.smallSample ? "text-amber-700" : "text-slate-600"}`}
                    data-testid="headline-rate-sample"
                    data-small-sample={figures.smallSample}
                  >
                    {item.sample}
                  </span>
                ) : null}
              </dd>
              <dd
                className={`mt-0.5 text-xs ${item.id === "suppression-rate" && figures.smallSample ? "text-amber-700" : "text-slate-500"}`}
              >
                {item.hint}
              </dd>
            </div>
          );
        })}
      </dl>
      <p className="mt-2 text-xs text-slate-500">
        {windowLabel}; events from writers that record them, stuck as of now.
      </p>
    </section>
  );
}
