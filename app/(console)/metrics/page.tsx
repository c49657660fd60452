import type { SearchParams } from "nuqs/server";
import { Suspense } from "react";
import { MetricsSkeleton } from "@/components/metrics/metrics-skeleton";
import { MetricsView } from "@/components/metrics/metrics-view";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";
import type { Actor } from "@/lib/identity/actor";
import { requirePageActor } from "@/lib/auth/session-actor";
import { parseMetricsQuery } from "@/lib/metrics/metrics-params";
import { loadMetricsPageData } from "@/lib/pages/console-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";

export const metadata = { title: "Metrics" };

export default async function MetricsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("metrics:read", "/metrics");
  return (
    <>
      <PageHeader
        title="Metrics"
        description="Is deduplication working for each tool, and what is it costing? Window, tool and tenant live in the URL."
      />
      <Suspense fallback={<MetricsSkeleton />}>
        <MetricsSection actor={actor} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function MetricsSection({ actor, searchParams }: { actor: Actor; searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const parsed = parseMetricsQuery(params, { unknownParams: "ignore" });
  if (!parsed.ok) {
    return (
      <ul className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900" role="alert">
        {parsed.problems.map((p) => (
          <li key={p.param}>{p.message}</li>
        ))}
      </ul>
    );
  }
  const [data, lag] = await Promise.all([loadMetricsPageData(actor, parsed.value), loadReplicaLagNotice()]);
  if (!data.ok)
    return <UnknownTenantNotice message={data.message} link={{ path: "/metrics", params, tenants: actor.tenants }} />;
  return (
    <>
      <ReplicaLagBanner notice={lag} />
      <MetricsView
        report={data.report}
        configuredTools={data.configuredTools}
        tenantChoices={actor.tenants.length > 0 ? actor.tenants : null}
      />
    </>
  );
}
