import { formatAge } from "@/lib/format/relative-time";
import type { StuckClaims } from "@/lib/records/stuck-claims";
import { AutoRefreshToggle } from "@/components/stuck/auto-refresh-toggle";
import { StuckClaimsTable } from "@/components/stuck/stuck-claims-table";
import { StuckFilterBar } from "@/components/stuck/stuck-filter-bar";
import { StuckToolCounts } from "@/components/stuck/stuck-tool-counts";
import { KeysetPager } from "@/components/ui/keyset-pager";

type Props = {
  data: StuckClaims;
  canPlan: boolean;
  mayRelease: boolean;
  /** May force a release (admins): claims nobody can be asked about link to their record's forced release. */
  mayForceRelease: boolean;
  /** Each listed row's exact version, for those who may resolve; null for viewers. */
  versions: Record<string, string | null> | null;
  tenantChoices: string[] | null;
};

/** The stuck page below its header: counts by tool, filters and refresh, the claims, the bulk plan. */
export function StuckView({ data, canPlan, mayRelease, mayForceRelease, versions, tenantChoices }: Props) {
  const now = new Date(data.generatedAt);
  const links = data.page.links;
  const tools = data.byTool.flatMap((t) => (t.tool === null ? [] : [t.tool]));
  const askableTools = data.byTool.flatMap((t) => (t.tool !== null && t.processor !== null ? [t.tool] : []));
  return (
    <>
      <div className="mb-4 flex flex-wrap items-baseline gap-x-6 gap-y-1" data-testid="stuck-summary">
        <p className="text-sm text-slate-700">
          <strong className="text-lg tabular-nums text-slate-900" data-testid="stuck-total">
            {data.total.toLocaleString("en")}
          </strong>{" "}
          stuck claim{data.total === 1 ? "" : "s"}
          {data.filter.tenant || data.filter.tool ? " matching the filter" : ""}
          {data.oldestAgeMs !== null ? (
            <>
              {", the oldest "}
              <strong>{formatAge(new Date(now.getTime() - data.oldestAgeMs), now)}</strong> old
            </>
          ) : null}
        </p>
      </div>
      <StuckToolCounts
        counts={data.byTool}
        tenant={data.filter.tenant}
        activeTool={data.filter.tool}
        defaultThreshold={data.defaultThreshold}
      />
      <div className="mb-4 flex flex-wrap items-end justify-between gap-3 rounded-lg border border-slate-200 bg-white p-3">
        <StuckFilterBar tools={tools} tenantChoices={tenantChoices} />
        <AutoRefreshToggle generatedAt={data.generatedAt} />
      </div>
      <StuckClaimsTable
        claims={data.claims}
        now={data.generatedAt}
        canPlan={canPlan}
        filter={data.filter}
        total={data.total}
        versions={versions}
        mayRelease={mayRelease}
        mayForceRelease={mayForceRelease}
        askableTools={askableTools}
        emptyState={
          <div
            className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600"
            data-testid="stuck-empty"
          >
            No stuck claims{data.filter.tenant || data.filter.tool ? " match this filter" : ""}: every in_progress claim
            is younger than its tool&apos;s threshold.
          </div>
        }
      />
      {links.prev || links.next ? (
        <KeysetPager
          newest={links.prev ? `/stuck${links.first}` : null}
          newer={links.prev ? `/stuck${links.prev}` : null}
          older={links.next ? `/stuck${links.next}` : null}
          summary={`${data.claims.length.toLocaleString("en")} on this page`}
          order={data.order}
        />
      ) : null}
    </>
  );
}
