import { Suspense } from "react";
import { AuditChainStatus } from "@/components/audit/audit-chain-status";
import { AuditView } from "@/components/audit/audit-view";
import { TableSkeleton } from "@/components/ui/table-skeleton";
import { AuditFilterForm } from "@/components/audit/audit-filter-form";
import { QueryProblems } from "@/components/ui/query-problems";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";
import type { Actor } from "@/lib/identity/actor";
import { requirePageActor } from "@/lib/auth/session-actor";
import { auditHref } from "@/lib/audit/audit-search-params";
import { auditFilterValues, parseAuditQuery, typedAuditFilterValues } from "@/lib/audit/list-audit";
import { loadAuditPageData } from "@/lib/pages/console-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";

export const metadata = { title: "Audit" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("audit:read", "/audit");
  return (
    <>
      <PageHeader
        title="Audit"
        description="Every change the console made, append-only: who did what to which record, on what evidence. Filters live in the URL: copy it to share this view."
      />
      <Suspense fallback={<TableSkeleton label="Loading audit entries" />}>
        <AuditSection actor={actor} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function AuditSection({ actor, searchParams }: { actor: Actor; searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const parsed = parseAuditQuery(params, { unknownParams: "ignore" });
  if (!parsed.ok)
    return (
      <QueryProblems
        problems={parsed.problems}
        reset={{ href: "/audit", label: "Show the newest entries" }}
        testId="audit-query-problems"
        form={(problemIds) => (
          <AuditFilterForm
            values={typedAuditFilterValues(params, parsed.problems)}
            actions={[]}
            tenantChoices={actor.tenants.length > 0 ? actor.tenants : null}
            problemIds={problemIds}
          />
        )}
      />
    );
  const query = parsed.value;
  const [data, lag] = await Promise.all([loadAuditPageData(actor, query), loadReplicaLagNotice()]);
  if (!data.ok)
    return <UnknownTenantNotice message={data.message} link={{ path: "/audit", params, tenants: actor.tenants }} />;
  const { page, actions, chain } = data;
  const values = auditFilterValues(query);
  return (
    <>
      <ReplicaLagBanner notice={lag} />
      <AuditChainStatus status={chain} now={new Date(page.generatedAt)} />
      <AuditView
        page={page}
        values={values}
        actions={actions}
        tenantChoices={actor.tenants.length > 0 ? actor.tenants : null}
        links={{
          newest: auditHref(values),
          older: page.nextCursor ? auditHref({ ...values, cursor: page.nextCursor }) : null,
        }}
        atNewest={query.cursor === null}
        filtered={Boolean(
          query.id || query.actor || query.action || query.key || query.tenant || query.from || query.to,
        )}
      />
    </>
  );
}
