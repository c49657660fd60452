import type { SearchParams } from "nuqs/server";
import { Suspense } from "react";
import { ToolsView } from "@/components/tools/tools-view";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { TableSkeleton } from "@/components/ui/table-skeleton";
import { loadToolsParams } from "@/lib/annotations/tools-search-params";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { requirePageActor } from "@/lib/auth/session-actor";
import { loadToolsPageData } from "@/lib/pages/console-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";

export const metadata = { title: "Tools" };

export default async function ToolsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requirePageActor("tools:read", "/tools");
  return (
    <>
      <PageHeader
        title="Tools"
        description="Each tool's MCP annotations beside the evidence in the table. The flag follows the code; it never leads it: an idempotentHint needs a key behind it."
      />
      <Suspense fallback={<TableSkeleton label="Loading the tools audit" />}>
        <ToolsSection actor={actor} searchParams={searchParams} />
      </Suspense>
    </>
  );
}

async function ToolsSection({ actor, searchParams }: { actor: Actor; searchParams: Promise<SearchParams> }) {
  const { window } = await loadToolsParams(searchParams);
  const [audit, lag] = await Promise.all([loadToolsPageData(actor, window), loadReplicaLagNotice()]);
  return (
    <>
      <ReplicaLagBanner notice={lag} />
      <ToolsView
        audit={audit}
        canRefresh={can(actor.role, "tools:refresh")}
        canConfigure={can(actor.role, "tools:configure")}
        canReview={can(actor.role, "annotations:review")}
        canVerify={can(actor.role, "tools:verify")}
      />
    </>
  );
}
