import type { VerdictCount } from "@/lib/annotations/verdict-summary";
import type { VerdictTone } from "@/lib/annotations/verdicts";

const NUMBER_TONES: Record<VerdictTone, string> = {
  good: "text-emerald-800",
  danger: "text-red-800",
  warn: "text-amber-800",
  info: "text-sky-800",
  neutral: "text-slate-800",
};

/** The count of each verdict the rows below carry, under the word their badges show. */
export function VerdictSummary({ summary }: { summary: VerdictCount[] }) {
  if (summary.length === 0) return null;
  return (
    <p className="text-xs text-slate-600" data-testid="verdict-counts">
      {summary.map((s, i) => (
        <span key={s.verdict} data-verdict={s.verdict} data-count={s.count}>
          {i > 0 ? " · " : ""}
          <strong className={NUMBER_TONES[s.tone]}>{s.count}</strong> {s.word}
        </span>
      ))}
    </p>
  );
}
