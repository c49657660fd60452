import type { SearchParams } from "nuqs/server";
import { Suspense } from "react";
import { TableSkeleton } from "@/components/ui/table-skeleton";
import { QueryProblems } from "@/components/ui/query-problems";
import { StuckFilterBar } from "@/components/stuck/stuck-filter-bar";
import { StuckView } from "@/components/stuck/stuck-view";
import { PageHeader } from "@/components/ui/page-header";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { requirePageActor } from "@/lib/auth/session-actor";
import { loadStuckPageData } from "@/lib/pages/records-page-data";
import { parseStuckQuery } from "@/lib/records/stuck-claims";
import { configuredToolNames } from "@/lib/config/tool-names";

export const metadata = { title: "Stuck" };

export default async function StuckClaimsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("records:read", "/stuck");
  return (
    <>
      <PageHeader
        title="Stuck"
        description="Claims still in_progress past their tool's threshold: the processor may or may not have acted. Ask it, then complete with its receipt or release the claim."
      />
      <Suspense fallback={<TableSkeleton label="Loading stuck claims" />}>
        <StuckSection actor={actor} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function StuckSection({ actor, searchParams }: { actor: Actor; searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const parsed = parseStuckQuery(params);
  const tenantChoices = actor.tenants.length > 0 ? actor.tenants : null;
  if (!parsed.ok)
    return (
      <QueryProblems
        problems={parsed.problems}
        reset={{ href: "/stuck", label: "Show every stuck claim" }}
        testId="stuck-query-problems"
        form={(problemIds) => (
          <div className="rounded-lg border border-slate-200 bg-white p-3">
            <StuckFilterBar tools={configuredToolNames()} tenantChoices={tenantChoices} problemIds={problemIds} />
          </div>
        )}
      />
    );
  const loaded = await loadStuckPageData(actor, parsed.value);
  if (!loaded.ok)
    return <UnknownTenantNotice message={loaded.message} link={{ path: "/stuck", params, tenants: actor.tenants }} />;
  return (
    <StuckView
      data={loaded.data}
      canPlan={can(actor.role, "records:resolve")}
      mayRelease={can(actor.role, "records:release")}
      mayForceRelease={can(actor.role, "records:force-release")}
      versions={loaded.versions}
      tenantChoices={tenantChoices}
    />
  );
}
