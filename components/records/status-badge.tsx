import { formatDuration } from "@/lib/config/duration";

/**
 * completed green, in_progress amber, stuck red (with its threshold in the title); any other
 * status a writer wrote is shown as-is, in grey — never a crash, never hidden.
 */
export function StatusBadge({ status, stuck, stuckAfterMs }: { status: string; stuck: boolean; stuckAfterMs: number }) {
  const base = "inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap";
  if (stuck) {
    return (
      <span className={`${base} bg-red-50 text-red-800 ring-red-200`} title={`in_progress for longer than this tool's threshold (${formatDuration(stuckAfterMs)}): the processor may or may not have acted`} data-status="stuck">
        <span aria-hidden="true" className="h-1.5 w-1.5 rounded-full bg-red-600" />
        stuck
      </span>
    );
  }
  if (status === "completed") return <span className={`${base} bg-emerald-50 text-emerald-800 ring-emerald-200`} data-status="completed">completed</span>;
  if (status === "in_progress") {
    return (
      <span className={`${base} bg-amber-50 text-amber-800 ring-amber-200`} title={`claimed, no outcome yet; counts as stuck after ${formatDuration(stuckAfterMs)}`} data-status="in_progress">
        in_progress
      </span>
    );
  }
  return (
    <span className={`${base} bg-slate-100 text-slate-700 ring-slate-200`} title="a status the console does not know; shown as written" data-status="other">
      {status}
    </span>
  );
}
