import { alsoUnresolved, type VerdictCount } from "@/lib/annotations/verdict-summary";
import type { VerdictTone } from "@/lib/annotations/verdicts";

const NUMBER_TONES: Record<VerdictTone, string> = {
  good: "text-emerald-800",
  danger: "text-red-800",
  warn: "text-amber-800",
  info: "text-sky-800",
  neutral: "text-slate-800",
};

/**
 * The count of each verdict the rows below carry, under the word their badges show; then the unresolved
 * claims of rows whose verdict is another word (a verified tool with stuck claims), so "unresolved" never
 * drops out of the line while claims wait for an operator.
 */
export function VerdictSummary({ summary }: { summary: VerdictCount[] }) {
  if (summary.length === 0) return null;
  const unresolved = alsoUnresolved(summary);
  return (
    <p className="text-xs text-slate-600">
      <span data-testid="verdict-counts">
        {summary.map((s, i) => (
          <span key={s.verdict} data-verdict={s.verdict} data-count={s.count}>
            {i > 0 ? " · " : ""}
            <strong className={NUMBER_TONES[s.tone]}>{s.count}</strong> {s.word}
          </span>
        ))}
      </span>
      {unresolved ? (
        <span data-testid="verdict-also-unresolved">
          {" "}
          — also unresolved:{" "}
          {unresolved.map((part, i) => (
            <span key={part.text}>
              {i > 0 ? ", " : ""}
              <strong className={NUMBER_TONES.warn}>{part.claims}</strong> {part.text}
            </span>
          ))}
        </span>
      ) : null}
    </p>
  );
}
