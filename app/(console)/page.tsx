import { OverviewFigures } from "@/components/overview/overview-figures";
import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";
import { getDb } from "@/lib/db/client";
import { getOverviewCounts } from "@/lib/records/overview-counts";

export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  const actor = await requirePageActor("records:read", "/");
  const counts = await getOverviewCounts(getDb(), actor);
  return (
    <>
      <PageHeader title="Overview" description="The idempotency table at a glance: how many calls were claimed, and which claims are still in flight." />
      <OverviewFigures counts={counts} now={new Date()} />
      <div className="mt-6">
        <PlannedPanel items={["Duplicate-suppression headline figures per window (1 h, 24 h, 48 h).", "Stuck claims by tool, with their thresholds."]} />
      </div>
    </>
  );
}
