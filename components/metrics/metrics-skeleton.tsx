export function MetricsSkeleton() {
  return (
    <div role="status" aria-busy="true" aria-label="Loading metrics" className="animate-pulse space-y-4">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6">
        {Array.from({ length: 6 }, (_, i) => (
          <div key={i} className="h-24 rounded-lg bg-slate-200" />
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <div className="h-72 rounded-lg bg-slate-200" />
        <div className="h-72 rounded-lg bg-slate-200" />
      </div>
      <div className="h-48 rounded-lg bg-slate-200" />
    </div>
  );
}
