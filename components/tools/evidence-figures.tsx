import type { ToolEvidence } from "@/lib/annotations/tool-audit-types";

/** The table's figures for one tool over the window; stuck counts claims of any age. */
export function EvidenceFigures({ evidence }: { evidence: ToolEvidence }) {
  const items: [string, number, string][] = [
    ["records", evidence.records, "claims made in the window, released ones included"],
    ["replays", evidence.replays, "repeats answered from the stored response"],
    ["rejections", evidence.rejections, "repeats told the first call is still in flight"],
    ["outcome unknown", evidence.outcomeUnknown, "processor timeouts reported by the writer"],
    ["stuck", evidence.stuck, "in_progress past the tool's threshold, any age"],
  ];
  return (
    <div className="text-xs" data-testid="evidence">
      <dl className="grid grid-cols-[auto_auto] gap-x-2">
        {items.map(([label, value, title]) => (
          <div key={label} className="contents" title={title}>
            <dt className="text-slate-500">{label}</dt>
            <dd
              className={`tabular-nums ${value > 0 && (label === "stuck" || label === "outcome unknown") ? "font-medium text-amber-800" : "text-slate-900"}`}
              data-figure={label}
            >
              {value.toLocaleString("en")}
            </dd>
          </div>
        ))}
      </dl>
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
