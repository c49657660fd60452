import { redirect } from "next/navigation";
import { LookupForm } from "@/components/lookup/lookup-form";
import { ActionResult } from "@/components/ui/action-result";
import { LookupResults } from "@/components/lookup/lookup-results";
import { PageHeader } from "@/components/ui/page-header";
import { ReplicaLagBanner } from "@/components/ui/replica-lag-banner";
import { requirePageActor } from "@/lib/auth/session-actor";
import { lookUpForPage } from "@/lib/pages/record-page-data";
import { loadReplicaLagNotice } from "@/lib/pages/replica-lag-notice";
import { loadLookupParams, serializeLookupParams } from "@/lib/records/lookup-search-params";

export const metadata = { title: "Lookup" };
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function LookupPage({ searchParams }: Props) {
  const { q: text } = await loadLookupParams(searchParams);
  const actor = await requirePageActor(
    "records:lookup",
    serializeLookupParams("/lookup", { q: text ? text.slice(0, 2_000) : null }),
  );
  const now = new Date();
  const [result, lag] = await Promise.all([text.trim() ? lookUpForPage(actor, text) : null, loadReplicaLagNotice()]);
  // One thing named, one record found: straight to it, the answer support came for.
  const only = result?.kind === "searched" && result.answers.length === 1 ? result.answers[0] : undefined;
  if (only?.outcome === "found" && only.matches[0]) redirect(`/records/${only.matches[0].key}`);
  return (
    <>
      <PageHeader
        title="Lookup"
        description="Paste a customer's error message or a whole ticket — refs, keys, receipt or tracking ids — and land on the record."
      />
      <ReplicaLagBanner notice={lag} />
      <div className="max-w-5xl space-y-6">
        <LookupForm key={text} initialText={text} />
        {/* A lookup is a navigation: its result takes focus (and is announced) as an in-page answer would. */}
        <ActionResult resultKey={result ? text : null} label="lookup result">
          {result ? <LookupResults result={result} now={now} /> : null}
        </ActionResult>
      </div>
    </>
  );
}
