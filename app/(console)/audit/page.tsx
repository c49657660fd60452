import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Audit" };

export default async function AuditPage() {
  await requirePageActor("audit:read", "/audit");
  return (
    <>
      <PageHeader title="Audit" description="Every operator action, append-only: who did what to which record, and on what evidence." />
      <PlannedPanel
        items={[
          "Filters by actor, action, key and time.",
          "Before and after snapshots of each change, with the processor's evidence.",
        ]}
      />
    </>
  );
}
