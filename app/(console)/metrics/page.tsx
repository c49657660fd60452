import type { SearchParams } from "nuqs/server";
import { Suspense } from "react";
import { MetricsSkeleton } from "@/components/metrics/metrics-skeleton";
import { MetricsView } from "@/components/metrics/metrics-view";
import { PageHeader } from "@/components/ui/page-header";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";
import type { Actor } from "@/lib/auth/actor";
import { requirePageActor } from "@/lib/auth/session-actor";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { parseMetricsQuery } from "@/lib/metrics/metrics-params";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

export const metadata = { title: "Metrics" };

export default async function MetricsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("metrics:read", "/metrics");
  return (
    <>
      <PageHeader title="Metrics" description="Is deduplication working for each tool, and what is it costing? Window, tool and tenant live in the URL." />
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
  const tenant = await checkTenantFilter(getDb(), actor, parsed.value.tenant);
  if (!tenant.ok) return <UnknownTenantNotice message={tenant.message} link={{ path: "/metrics", params, tenants: actor.tenants }} />;
  const config = getConfig();
  const report = await getMetrics(getDb(), config, actor, parsed.value, new Date());
  return <MetricsView report={report} configuredTools={Object.keys(config.tools)} tenantChoices={actor.tenants.length > 0 ? actor.tenants : null} />;
}
