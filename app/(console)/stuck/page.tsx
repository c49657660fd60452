import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Stuck" };

export default async function StuckClaimsPage() {
  await requirePageActor("records:read", "/stuck");
  return (
    <>
      <PageHeader title="Stuck" description="Claims still in_progress past their tool's threshold: the processor may or may not have acted." />
      <PlannedPanel
        items={[
          "Age, tool and tenant of each stuck claim, counts by tool, auto-refresh.",
          "Ask the processor; complete with its receipt, or release the claim when it confirms nothing happened.",
          "Bulk plans with a dry run first; every action audited.",
        ]}
      />
    </>
  );
}
