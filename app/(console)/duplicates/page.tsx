import { Suspense } from "react";
import { DuplicatesView } from "@/components/duplicates/duplicates-view";
import { TableSkeleton } from "@/components/ui/table-skeleton";
import { PageHeader } from "@/components/ui/page-header";
import { DuplicatesFilterForm } from "@/components/duplicates/duplicates-filter-form";
import { QueryProblems } from "@/components/ui/query-problems";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";
import type { Actor } from "@/lib/identity/actor";
import { requirePageActor } from "@/lib/auth/session-actor";
import { parseDuplicatesQuery, typedDuplicatesFilterValues } from "@/lib/duplicates/duplicates-params";
import { loadDuplicatesPageData } from "@/lib/pages/duplicates-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";

export const metadata = { title: "Duplicates that got through" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function DuplicatesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("records:read", "/duplicates");
  return (
    <>
      <PageHeader
        title="Duplicates that got through"
        description={
          <>
            One operation — the same tenant, subject, tool and arguments — executed under two keys less than its
            tool&apos;s window apart. A retry that arrives after a slow upstream can fall into the following time
            bucket, get a different key, and run again. The fix: key the tool by a business key such as the order id, or
            have the writer check the previous bucket&apos;s key before claiming. Filters live in the URL.
          </>
        }
      />
      <Suspense fallback={<TableSkeleton label="Loading duplicates" />}>
        <DuplicatesSection actor={actor} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function DuplicatesSection({ actor, searchParams }: { actor: Actor; searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const parsed = parseDuplicatesQuery(params, { unknownParams: "ignore" });
  if (!parsed.ok)
    return (
      <QueryProblems
        problems={parsed.problems}
        reset={{ href: "/duplicates", label: "Show the last 24 hours" }}
        testId="duplicates-query-problems"
        form={(problemIds) => (
          <DuplicatesFilterForm
            values={typedDuplicatesFilterValues(params)}
            tools={[]}
            tenantChoices={actor.tenants.length > 0 ? actor.tenants : null}
            problemIds={problemIds}
          />
        )}
      />
    );
  const [data, lag] = await Promise.all([loadDuplicatesPageData(actor, parsed.value), loadReplicaLagNotice()]);
  if (!data.ok)
    return (
      <UnknownTenantNotice message={data.message} link={{ path: "/duplicates", params, tenants: actor.tenants }} />
    );
  return (
    <>
      <ReplicaLagBanner notice={lag} />
      <DuplicatesView
        report={data.report}
        query={parsed.value}
        tenantChoices={actor.tenants.length > 0 ? actor.tenants : null}
      />
    </>
  );
}
