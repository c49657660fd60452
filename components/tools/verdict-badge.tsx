import { Badge } from "@/components/ui/badge";
import type { VerdictTone } from "@/lib/annotations/verdicts";

/** The verdict's label in its tone; an uncertain verdict (no rows in the window) says so. */
export function VerdictBadge({
  label,
  tone,
  certain,
  kind,
}: {
  label: string;
  tone: VerdictTone;
  certain: boolean;
  kind: string;
}) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <Badge tone={tone} data-verdict={kind}>
        {label}
      </Badge>
      {certain ? null : (
        <span
          className="text-[11px] text-slate-500"
          title="No rows for this tool in the window: the verdict rests on absence of evidence"
        >
          uncertain
        </span>
      )}
    </span>
  );
}
