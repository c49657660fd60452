import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Records" };

export default async function RecordsPage() {
  await requirePageActor("records:read", "/records");
  return (
    <>
      <PageHeader title="Records" description="Every claim the writers recorded, newest first." />
      <PlannedPanel
        items={[
          "Filters by tenant, tool, status, stuck only and time, kept in the URL so a link can be shared.",
          "Keyset paging on (created_at, key): as fast 100,000 rows deep as on the first page.",
          "Counts per status and tool for the current filter; CSV and JSON export.",
        ]}
      />
    </>
  );
}
