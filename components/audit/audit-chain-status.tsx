import { Badge } from "@/components/ui/badge";
import type { ChainVerificationStatus } from "@/lib/audit/audit-chain-verifications";
import { formatAge } from "@/lib/format/relative-time";

const PROBLEM = {
  content: "content changed: the entry was edited after it was written",
  link: "link broken: an entry before it was removed or slipped in",
} as const;

/** What the newest `idem audit verify` found (docs/audit-chain.md): verified, broken at a named entry, or never run. */
export function AuditChainStatus({ status, now }: { status: ChainVerificationStatus | null; now: Date }) {
  const when = status ? (
    <time dateTime={status.finishedAt.toISOString()} title={status.finishedAt.toISOString()}>
      {formatAge(status.finishedAt, now)} ago
    </time>
  ) : null;
  return (
    <section
      aria-label="Audit chain"
      className="mb-4 flex flex-wrap items-center gap-x-2 gap-y-1 rounded-lg border border-slate-200 bg-white px-4 py-3 text-sm text-slate-700"
      data-testid="audit-chain-status"
      data-state={status === null ? "never" : status.ok ? "verified" : "broken"}
    >
      {status === null ? (
        <>
          <Badge tone="warn">chain never verified</Badge>
          <span>
            No verification of the audit hash chain is recorded: run <code>npm run idem -- audit verify</code>.
          </span>
        </>
      ) : status.firstBad ? (
        <>
          <Badge tone="danger" dot>
            chain broken
          </Badge>
          <span>
            At entry #{status.firstBad.id}: {PROBLEM[status.firstBad.problem]}. Found {when}
            {status.throughId ? `; entries through #${status.throughId} matched` : ""}.
          </span>
        </>
      ) : (
        <>
          <Badge tone="good">chain verified</Badge>
          <span>
            {when}: {status.rows.toLocaleString("en")} entr{status.rows === 1 ? "y" : "ies"} hashed again
            {status.throughId ? ` through #${status.throughId}` : ""}, every one matched.
          </span>
        </>
      )}
    </section>
  );
}
