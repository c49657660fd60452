import type { ToolEvidence } from "@/lib/annotations/tool-audit-types";
import { RepeatDelayBar, RepeatDelayLegend } from "@/components/repeats/repeat-delay-bars";
import { medianText } from "@/lib/repeats/repeat-delay-text";

/** The table's figures for one tool over the window; stuck counts claims of any age. */
export function EvidenceFigures({ evidence }: { evidence: ToolEvidence }) {
  const items: [string, number | null, string][] = [
    ["records", evidence.records, "claims made in the window, released ones included"],
    ["replays", evidence.replays, "repeats answered from the stored response"],
    ["rejections", evidence.rejections, "repeats told the first call is still in flight"],
    ["outcome unknown", evidence.outcomeUnknown, "processor timeouts reported by the writer"],
    ["stuck", evidence.stuck, "in_progress past the tool's threshold, any age"],
    [
      "duplicates",
      evidence.duplicatesThrough,
      "duplicates that got through: one operation executed under two keys less than a window apart",
    ],
    ["args refused", evidence.argumentsMismatches, "calls refused for other arguments under a reused key"],
  ];
  const alarming = new Set(["stuck", "outcome unknown", "duplicates", "args refused"]);
  const delays = evidence.repeatDelays;
  const busiest = delays?.byClient[0];
  return (
    <div className="text-xs" data-testid="evidence">
      <dl className="grid grid-cols-[auto_auto] gap-x-2">
        {items.map(([label, value, title]) => (
          <div key={label} className="contents" title={title}>
            <dt className="text-slate-500">{label}</dt>
            <dd
              className={`tabular-nums ${value === null ? "italic text-slate-500" : value > 0 && alarming.has(label) ? "font-medium text-amber-800" : "text-slate-900"}`}
              data-figure={label}
            >
              {value === null ? "not recorded" : value.toLocaleString("en")}
            </dd>
          </div>
        ))}
      </dl>
      <div className="mt-2 max-w-56" data-testid="evidence-repeat-delays">
        {delays === null ? (
          <p className="text-slate-500">repeat delays: none recorded</p>
        ) : (
          <>
            <RepeatDelayBar bands={delays.bands} label="Repeats by delay after the first call" />
            <details className="mt-1">
              <summary className="cursor-pointer text-slate-700">
                {delays.repeats.toLocaleString("en")} repeat{delays.repeats === 1 ? "" : "s"},{" "}
                {medianText(delays.median)}
                {busiest ? `; most from ${busiest.client ?? "an unrecorded host"}` : ""}
              </summary>
              <RepeatDelayLegend bands={delays.bands} compact />
            </details>
          </>
        )}
      </div>
      <p className="mt-1 text-slate-500">
        last seen{" "}
        {evidence.lastSeen ? (
          <time dateTime={evidence.lastSeen}>{evidence.lastSeen.slice(0, 16).replace("T", " ")} UTC</time>
        ) : (
          "never"
        )}
      </p>
    </div>
  );
}
