import { HeadlineFigures } from "@/components/metrics/headline-figures";
import { OverviewFigures } from "@/components/overview/overview-figures";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageActor } from "@/lib/auth/session-actor";
import { can } from "@/lib/auth/permissions";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { getOverviewCounts } from "@/lib/records/overview-counts";

export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  const actor = await requirePageActor("records:read", "/");
  const config = getConfig();
  const now = new Date();
  const [counts, metrics] = await Promise.all([
    getOverviewCounts(getDb(), actor, config, now),
    can(actor.role, "metrics:read") ? getMetrics(getDb(), config, actor, { window: "24h", tool: null, tenant: null }, now) : Promise.resolve(null),
  ]);
  return (
    <>
      <PageHeader title="Overview" description="The idempotency table at a glance: how many calls were claimed, which claims are stuck, and how well repeats were suppressed." />
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
    </>
  );
}
