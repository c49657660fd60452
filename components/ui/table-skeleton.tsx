/**
 * What a list page shows while its query runs: the shape of a table, no numbers. A status with a
 * name (an aria-label on a plain div is not allowed), saying what is loading.
 */
export function TableSkeleton({ label }: { label: string }) {
  return (
    <div role="status" aria-busy="true" aria-label={label} className="animate-pulse space-y-3">
      <div className="h-10 rounded-lg bg-slate-200/70" />
      <div className="h-6 w-2/3 rounded bg-slate-200/70" />
      <div className="rounded-lg border border-slate-200 bg-white">
        {Array.from({ length: 10 }, (_, i) => (
          <div key={i} className="flex gap-4 border-b border-slate-100 px-4 py-3 last:border-0">
            <div className="h-4 w-28 rounded bg-slate-200" />
            <div className="h-4 w-20 rounded bg-slate-200" />
            <div className="h-4 w-24 rounded bg-slate-200" />
            <div className="h-4 w-32 rounded bg-slate-200" />
            <div className="h-4 w-20 rounded bg-slate-200" />
            <div className="ml-auto h-4 w-16 rounded bg-slate-200" />
          </div>
        ))}
      </div>
    </div>
  );
}
