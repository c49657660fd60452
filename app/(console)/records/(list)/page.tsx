import type { SearchParams } from "nuqs/server";
import { Suspense } from "react";
import { TableSkeleton } from "@/components/ui/table-skeleton";
import { QueryProblems } from "@/components/ui/query-problems";
import { RecordsFilterBar } from "@/components/records/records-filter-bar";
import { RecordsView } from "@/components/records/records-view";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";
import type { Actor } from "@/lib/identity/actor";
import { requirePageActor } from "@/lib/auth/session-actor";
import { loadRecordsPageData } from "@/lib/pages/records-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";
import { EXPORT_MAX_ROWS } from "@/lib/records/export-records";
import { parseRecordsQuery } from "@/lib/records/list-filters";
import { configuredSearchLabels } from "@/lib/config/search-specs";
import { configuredToolNames } from "@/lib/config/tool-names";

export const metadata = { title: "Records" };

export default async function RecordsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("records:read", "/records");
  return (
    <>
      <PageHeader
        title="Records"
        description="Every claim the writers recorded, newest first. Filters live in the URL: copy it to share this view."
      />
      <Suspense fallback={<TableSkeleton label="Loading records" />}>
        <RecordsSection actor={actor} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function RecordsSection({ actor, searchParams }: { actor: Actor; searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const searchLabels = configuredSearchLabels();
  const parsed = parseRecordsQuery(params, { unknownParams: "ignore", searchLabels });
  const tenantChoices = actor.tenants.length > 0 ? actor.tenants : null;
  if (!parsed.ok)
    return (
      <QueryProblems
        problems={parsed.problems}
        reset={{ href: "/records", label: "Show all records" }}
        testId="records-query-problems"
        form={(problemIds) => (
          <RecordsFilterBar
            tools={configuredToolNames()}
            statuses={[]}
            tenantChoices={tenantChoices}
            searchLabels={searchLabels}
            problemIds={problemIds}
          />
        )}
      />
    );
  const [data, lag] = await Promise.all([loadRecordsPageData(actor, parsed.value), loadReplicaLagNotice()]);
  if (!data.ok)
    return <UnknownTenantNotice message={data.message} link={{ path: "/records", params, tenants: actor.tenants }} />;
  const { listing, configuredTools } = data;
  return (
    <>
      <ReplicaLagBanner notice={lag} />
      <RecordsView
        query={parsed.value}
        listing={listing}
        configuredTools={configuredTools}
        searchLabels={searchLabels}
        tenantChoices={tenantChoices}
        exportMaxRows={EXPORT_MAX_ROWS}
      />
    </>
  );
}
