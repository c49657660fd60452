import { HeadlineFigures } from "@/components/metrics/headline-figures";
import { OverviewFigures } from "@/components/overview/overview-figures";
import { TableBoundsFigures } from "@/components/overview/table-bounds";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { requirePageActor } from "@/lib/auth/session-actor";
import { loadOverviewPageData } from "@/lib/pages/console-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";

export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  const actor = await requirePageActor("records:read", "/");
  const now = new Date();
  const [{ counts, metrics, bounds }, lag] = await Promise.all([
    loadOverviewPageData(actor, now),
    loadReplicaLagNotice(),
  ]);
  return (
    <>
      <PageHeader
        title="Overview"
        description="The idempotency table at a glance: how many calls were claimed, which claims are stuck, and how well repeats were suppressed."
      />
      <ReplicaLagBanner notice={lag} />
      <OverviewFigures counts={counts} now={now} />
      {metrics ? (
        <div className="mt-6">
          <h2 className="mb-2 text-sm font-medium text-slate-700">
            Duplicate suppression, last 24 hours{" "}
            <a href="/metrics" className="ml-1 font-normal text-slate-500 underline underline-offset-2">
              per tool and over time
            </a>
          </h2>
          <HeadlineFigures figures={metrics.overall} windowLabel="last 24 hours" />
        </div>
      ) : null}
      {bounds ? <TableBoundsFigures bounds={bounds} now={now} /> : null}
    </>
  );
}
