import type { VerdictTone } from "@/lib/annotations/verdicts";

const TONES: Record<VerdictTone, string> = {
  good: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  danger: "bg-red-50 text-red-800 ring-red-200",
  warn: "bg-amber-50 text-amber-800 ring-amber-200",
  info: "bg-sky-50 text-sky-800 ring-sky-200",
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
};

/** The verdict's label in its tone; an uncertain verdict (no rows in the window) says so. */
export function VerdictBadge({ label, tone, certain, kind }: { label: string; tone: VerdictTone; certain: boolean; kind: string }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONES[tone]}`} data-verdict={kind}>
        {label}
      </span>
      {certain ? null : (
        <span className="text-[11px] text-slate-500" title="No rows for this tool in the window: the verdict rests on absence of evidence">
          uncertain
        </span>
      )}
    </span>
  );
}
