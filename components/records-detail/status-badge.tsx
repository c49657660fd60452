const STYLES: Record<string, string> = {
  completed: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  in_progress: "bg-amber-50 text-amber-800 ring-amber-200",
};

/** A row's status as stored; a value the contract does not name is shown as-is, in grey. */
export function StatusBadge({ status, stuck }: { status: string; stuck?: boolean }) {
  const style = stuck ? "bg-red-50 text-red-800 ring-red-200" : (STYLES[status] ?? "bg-slate-100 text-slate-700 ring-slate-200");
  return (
    <span className={`inline-flex items-center rounded-full px-2 py-0.5 font-mono text-xs ring-1 ring-inset ${style}`} data-testid="record-status">
      {status}
      {stuck ? " · stuck" : ""}
    </span>
  );
}
