import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { RecordDetailView } from "@/components/records-detail/record-detail-view";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageActor } from "@/lib/auth/session-actor";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { getRecordDetail, parseKeyParam } from "@/lib/records/record-detail";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ key: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { key } = await params;
  return { title: `Record ${key.slice(0, 12)}` };
}

export default async function RecordPage({ params }: Props) {
  const { key: raw } = await params;
  const actor = await requirePageActor("records:read", `/records/${raw}`);
  const param = parseKeyParam(raw);
  // A ref typed into the address bar: the lookup handles prefixes and collisions.
  if (param.kind === "ref") redirect(`/lookup?q=${param.ref}`);
  if (param.kind === "invalid") notFound();
  const now = new Date();
  const detail = await getRecordDetail(getDb(), getConfig(), actor, param.key, now);
  // Absent and "another tenant's" look the same: existence is data too.
  if (!detail) notFound();
  return (
    <>
      <PageHeader title="Record" description="One claim in the idempotency table: what the caller saw, its state, its age, and what the processor says." />
      <RecordDetailView detail={detail} now={now} />
    </>
  );
}
