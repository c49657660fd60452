import { PageHeader } from "@/components/ui/page-header";

// Without this, the records list's skeleton (records/loading.tsx) would flash while a record loads.
export default function RecordLoading() {
  return (
    <>
      <PageHeader title="Record" description="One claim in the idempotency table: what the caller saw, its state, its age, and what the processor says." />
      <div className="space-y-6" aria-busy="true" aria-label="Loading the record">
        <div className="h-48 animate-pulse rounded-lg border border-slate-200 bg-white" />
        <div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
          <div className="h-64 animate-pulse rounded-lg border border-slate-200 bg-white" />
          <div className="h-64 animate-pulse rounded-lg border border-slate-200 bg-white" />
        </div>
      </div>
    </>
  );
}
