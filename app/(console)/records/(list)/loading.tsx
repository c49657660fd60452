import { RecordsSkeleton } from "@/components/records/records-skeleton";
import { PageHeader } from "@/components/ui/page-header";

export default function RecordsLoading() {
  return (
    <>
      <PageHeader title="Records" description="Every claim the writers recorded, newest first." />
      <RecordsSkeleton />
    </>
  );
}
