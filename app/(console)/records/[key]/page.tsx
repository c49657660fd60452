import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { RefFateCard } from "@/components/lookup/ref-fate-card";
import { RecordDetailView } from "@/components/records-detail/record-detail-view";
import { ResolvePanel } from "@/components/records-detail/resolve-panel";
import { ResolvedNotice } from "@/components/resolve/resolve-confirmation";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { can } from "@/lib/auth/permissions";
import { requirePageActor } from "@/lib/auth/session-actor";
import { loadRecordPageData } from "@/lib/pages/record-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";
import { parseKeyParam } from "@/lib/records/record-detail";
import { serializeLookupParams } from "@/lib/records/lookup-search-params";
import { loadRecordPageParams, stuckFilterOf } from "@/lib/records/record-page-params";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ key: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { key } = await params;
  return { title: `Record ${key.slice(0, 12)}` };
}

export default async function RecordPage({ params, searchParams }: Props) {
  const { key: raw } = await params;
  const actor = await requirePageActor("records:read", `/records/${raw}`);
  const param = parseKeyParam(raw);
  // A ref typed into the address bar: the lookup handles prefixes and collisions.
  if (param.kind === "ref") redirect(serializeLookupParams("/lookup", { q: param.ref }));
  if (param.kind === "invalid") notFound();
  const now = new Date();
  const pageParams = await loadRecordPageParams(searchParams);
  const { resolved } = pageParams;
  const within = stuckFilterOf(pageParams);
  // Right after a resolve the page reads the primary (lib/pages/record-page-data.ts): no lag to name then.
  const [data, lag] = await Promise.all([
    loadRecordPageData(actor, param.key, now, { resolved, within }),
    resolved === null ? loadReplicaLagNotice() : null,
  ]);
  // Absent and "another tenant's" look the same — existence is data too — so both are a 404.
  if (data.kind === "absent") notFound();
  if (data.kind === "gone") {
    // Gone from the table: say what the audit log holds about it (within the reader's tenants).
    const trace = data.trace;
    return (
      <>
        <PageHeader
          title="Record"
          description="This key is no longer in the idempotency table; the audit log says what happened to it."
        />
        <ReplicaLagBanner notice={lag} />
        <div className="max-w-5xl space-y-4">
          <ResolvedNotice confirmation={data.confirmation} now={now} within={within} />
          <RefFateCard trace={trace} now={now} />
        </div>
      </>
    );
  }
  // Operators get the resolve panel (viewers never see its buttons; the API refuses them anyway),
  // with the row's exact version for the compare-and-set.
  const { detail, mayResolve, version } = data;
  return (
    <>
      <PageHeader
        title="Record"
        description="One claim in the idempotency table: what the caller saw, its state, its age, and what the processor says."
      />
      <ReplicaLagBanner notice={lag} />
      <ResolvedNotice confirmation={data.confirmation} now={now} within={within} className="mb-4" />
      <RecordDetailView
        detail={detail}
        now={now}
        canReveal={can(actor.role, "records:reveal")}
        allowRepeatVersion={data.mayAllowRepeat ? version : undefined}
        processorPanel={
          mayResolve ? (
            <ResolvePanel
              recordKey={detail.record.key}
              tool={detail.record.tool}
              processor={detail.processor}
              status={detail.record.status}
              isStuck={detail.stuck.isStuck}
              threshold={detail.stuck.threshold}
              version={version}
              permissions={{
                resolve: true,
                release: can(actor.role, "records:release"),
                forceRelease: can(actor.role, "records:force-release"),
              }}
              within={within}
            />
          ) : undefined
        }
      />
    </>
  );
}
