import type { ReactNode } from "react";
import { Link } from "@/components/ui/link";
import { formatAge } from "@/lib/format/relative-time";
import type { BucketNeighbour, KeyExplanation } from "@/lib/records/explain-key";
import { CanonicalDiffTable } from "@/components/records-detail/canonical-diff-table";
import { CopyButton } from "@/components/ui/copy-button";
import { StatusBadge } from "@/components/records/status-badge";
import { utcText } from "@/components/ui/time-stamp";
import { UnknownTenantNotice } from "@/components/ui/unknown-tenant-notice";

const POSITION_TEXT: Record<BucketNeighbour["position"], string> = {
  previous: "Previous bucket",
  same: "This call's bucket",
  next: "Next bucket",
};

export function KeyExplanationView({ explanation }: { explanation: KeyExplanation }) {
  const { derived, input } = explanation;
  const same = explanation.buckets.find((b) => b.position === "same");
  return (
    <div className="space-y-6">
      <section className="rounded-lg border border-slate-200 bg-white p-5" aria-label="Derivation">
        <h2 className="mb-3 text-sm font-semibold [overflow-wrap:anywhere]">
          sha256(tenant|subject|tool|canonical|bucket)
        </h2>
        <dl className="space-y-3 text-sm">
          <Row label="Canonical arguments" copy={derived.canonical}>
            <code className="break-all font-mono text-xs" data-testid="explain-canonical">
              {derived.canonical}
            </code>
            <span className="ml-2 text-xs text-slate-500">({derived.scheme})</span>
          </Row>
          <Row label="Bucket">
            <code className="font-mono">{derived.bucket}</code>
            <span className="ml-2 text-xs text-slate-500">
              = floor(unix seconds / {input.windowSeconds});{" "}
              {same ? `${utcText(same.startsAt)} to ${utcText(same.endsAt)}` : ""}
            </span>
          </Row>
          <Row label="Material (hashed as UTF-8)" copy={derived.material}>
            <code className="break-all font-mono text-xs" data-testid="explain-material">
              {derived.material}
            </code>
          </Row>
          <Row label="Key" copy={derived.key}>
            <code className="break-all font-mono text-xs" data-testid="explain-key">
              {derived.key}
            </code>
          </Row>
          <Row label="Ref" copy={derived.ref}>
            <code className="font-mono text-base font-semibold" data-testid="explain-ref">
              {derived.ref}
            </code>
          </Row>
        </dl>
      </section>

      <section aria-label="Bucket neighbours">
        <h2 className="mb-1 text-sm font-semibold">The same call in the neighbouring buckets</h2>
        <p className="mb-3 text-sm text-slate-600">
          A repeat that lands in another bucket gets another key and is performed again: these are the near-duplicates a
          time window lets through. Records are looked up in the tenants you can see.
        </p>
        {explanation.recordsError ? (
          <div className="mb-3">
            <UnknownTenantNotice
              message={explanation.recordsError.message}
              detail="The keys above are derived all the same; no records were looked up for them."
            />
          </div>
        ) : null}
        <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
          {explanation.buckets.map((bucket) => (
            <BucketCard key={bucket.position} bucket={bucket} />
          ))}
        </div>
      </section>

      {explanation.comparison ? <Comparison explanation={explanation} /> : null}
    </div>
  );
}

function BucketCard({ bucket }: { bucket: BucketNeighbour }) {
  const highlight = bucket.position === "same" ? "border-slate-400" : "border-slate-200";
  return (
    <div className={`rounded-lg border bg-white p-4 ${highlight}`} data-testid={`bucket-${bucket.position}`}>
      <div className="text-xs font-medium uppercase tracking-wide text-slate-500">{POSITION_TEXT[bucket.position]}</div>
      <div className="mt-1 font-mono text-sm">bucket {bucket.bucket}</div>
      <div className="text-xs text-slate-500">
        {utcText(bucket.startsAt)} – {utcText(bucket.endsAt).replace(/^\S+ /, "")}
      </div>
      <div className="mt-2 font-mono text-sm" title={bucket.key}>
        ref {bucket.ref}
      </div>
      {bucket.records === null ? null : bucket.records.length === 0 ? (
        <p className="mt-2 text-sm text-slate-500">No record with this key.</p>
      ) : (
        <ul className="mt-2 space-y-2">
          {bucket.records.map((record) => (
            <li key={record.key} className="text-sm" data-testid="bucket-record">
              <Link href={`/records/${record.key}`} className="font-mono font-medium underline">
                {record.ref}
              </Link>{" "}
              <StatusBadge status={record.status} wording="stored" />
              <div className="text-xs text-slate-600">{describeOffset(bucket.position, record.offsetMs)}</div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function describeOffset(position: BucketNeighbour["position"], offsetMs: number): string {
  const amount = formatAge(new Date(0), new Date(Math.abs(offsetMs)));
  const when = Math.abs(offsetMs) < 1000 ? "at this time" : offsetMs < 0 ? `${amount} earlier` : `${amount} later`;
  if (position === "same") return `Created ${when}: the same key, so a repeat here was recognised.`;
  return `The same call ${when} fell in the ${position} bucket: a different key, performed separately.`;
}

function Comparison({ explanation }: { explanation: KeyExplanation }) {
  const comparison = explanation.comparison;
  if (!comparison) return null;
  const { diff, other } = comparison;
  return (
    <section
      className="rounded-lg border border-slate-200 bg-white p-5"
      aria-label="Comparison"
      data-testid="explain-comparison"
    >
      <h2 className="mb-2 text-sm font-semibold">
        Why the two argument texts give {diff.equal ? "the same key" : "different keys"}
      </h2>
      {diff.equal ? (
        <p className="text-sm text-slate-700">
          Both canonicalise to the same {diff.leftBytes} bytes, so they produce one key (
          <code className="font-mono">{explanation.derived.ref}</code>): key order and whitespace do not matter once the
          JSON is canonical.
        </p>
      ) : (
        <>
          <p className="text-sm text-slate-700" data-testid="explain-diff-offset">
            The canonical forms first differ at byte {diff.offset} ({diff.leftBytes} and {diff.rightBytes} bytes long),
            so the material differs and so does every bit of the hash:{" "}
            <code className="font-mono">{explanation.derived.ref}</code> vs{" "}
            <code className="font-mono">{other.ref}</code>.
          </p>
          <div className="mt-3">
            <CanonicalDiffTable diff={diff} leftName="arguments" rightName="compare" />
          </div>
        </>
      )}
      <p className="mt-3 break-all text-xs text-slate-500">
        Second canonical form: <code className="font-mono">{other.canonical}</code>
      </p>
    </section>
  );
}

function Row({ label, copy, children }: { label: string; copy?: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-1 md:grid-cols-[12rem_1fr]">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="flex items-start gap-2">
        <div className="min-w-0 flex-1">{children}</div>
        {copy ? <CopyButton text={copy} /> : null}
      </dd>
    </div>
  );
}
