import { TableSkeleton } from "@/components/ui/table-skeleton";
import { PageHeader } from "@/components/ui/page-header";

export default function RecordsLoading() {
  return (
    <>
      <PageHeader title="Records" description="Every claim the writers recorded, newest first." />
      <TableSkeleton label="Loading records" />
    </>
  );
}
