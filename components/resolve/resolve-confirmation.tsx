import { Link } from "@/components/ui/link";
import { NextStuckLink } from "@/components/resolve/next-stuck-link";
import { ActionResult } from "@/components/ui/action-result";
import { auditHref } from "@/lib/audit/audit-search-params";
import type { NextStuckClaim, StuckFilter } from "@/lib/records/stuck-claims";
import type { ResolvedClaim } from "@/lib/resolve/resolved-claim";
import { repeatConsequence } from "@/lib/resolve/allow-repeat-words";

/** "Released claim 3f9a1c2b7d4e for charge_card (tenant acme): …", the sentence a confirmation opens with. */
export function resolvedSentence(resolved: ResolvedClaim): string {
  const claim = `claim ${resolved.key.slice(0, 12)} for ${resolved.tool ?? "an unrecorded tool"} (tenant ${resolved.tenant})`;
  if (resolved.action === "allow_repeat")
    return `Allowed a repeat of ${claim}: the row is deleted (its snapshot is in the audit entry); ${repeatConsequence(resolved.tool)}.`;
  if (resolved.action === "complete")
    return `Completed ${claim} with the processor's receipt: every repeat of the call now receives it.`;
  return resolved.forced
    ? `Force-released ${claim} without "not taken" evidence: the next retry will execute it again.`
    : `Released ${claim}: the next retry will execute it again.`;
}

/**
 * What a resolve did, in words, with its audit entry and the next stuck claim to clear. Content
 * for an ActionResult (which announces it and takes focus): the region is the caller's.
 */
export function ResolveConfirmation({
  resolved,
  nextStuck,
  now,
  within = null,
}: {
  resolved: ResolvedClaim;
  nextStuck: NextStuckClaim | null;
  /** The Stuck filter the next claim was picked within (on the Stuck page). */
  within?: StuckFilter | null;
  /** The instant the next claim's age is told from (the server's, on a server-rendered page). */
  now: string;
}) {
  return (
    <div
      className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950"
      data-testid="resolve-confirmation"
      data-action={resolved.action}
      data-audit-id={resolved.auditId}
    >
      <p className="font-medium">{resolvedSentence(resolved)}</p>
      <ul className="mt-2 flex flex-wrap gap-x-5 gap-y-1">
        <li>
          <Link href={auditHref({ id: resolved.auditId })} className="underline" data-testid="confirmation-audit-link">
            Audit entry #{resolved.auditId}
          </Link>
        </li>
        {/* An allowed repeat ends a completed record: no stuck-claim queue to go back to. */}
        {resolved.action === "allow_repeat" ? null : (
          <li>
            <NextStuckLink nextStuck={nextStuck} now={new Date(now)} within={within} backToStuck />
          </li>
        )}
      </ul>
    </div>
  );
}

/**
 * The record page's confirmation of a resolve made from it (the audit entry named in its URL):
 * rendered by the server, so it survives the release that deleted the row and a reload.
 */
export function ResolvedNotice({
  confirmation,
  now,
  within,
  className,
}: {
  confirmation: { resolved: ResolvedClaim; nextStuck: NextStuckClaim | null } | null;
  now: Date;
  /** The Stuck filter the user came from (the next claim was picked within it). */
  within: StuckFilter;
  className?: string;
}) {
  if (!confirmation) return null;
  return (
    <ActionResult resultKey={confirmation.resolved.auditId} label="resolution" className={className}>
      <ResolveConfirmation
        resolved={confirmation.resolved}
        nextStuck={confirmation.nextStuck}
        now={now.toISOString()}
        within={within}
      />
    </ActionResult>
  );
}
