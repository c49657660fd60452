/** What the records page shows while its query runs: the shape of the table, no numbers. */
export function RecordsSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading records" className="animate-pulse space-y-3">
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
