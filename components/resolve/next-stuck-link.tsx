import { Link } from "@/components/ui/link";
import { formatAge } from "@/lib/format/relative-time";
import { UNRECORDED_TOOL } from "@/lib/records/records-search-params";
import { recordHrefFromStuck } from "@/lib/records/record-page-params";
import type { NextStuckClaim, StuckFilter } from "@/lib/records/stuck-claims";

/** "tenant acme, tool charge_card": the Stuck filter a next claim was picked in, or null for none. */
export function describeStuckFilter(within: StuckFilter | null | undefined): string | null {
  const parts = [
    within?.tenant ? `tenant ${within.tenant}` : null,
    within?.tool ? (within.tool === UNRECORDED_TOOL ? "unrecorded tool" : `tool ${within.tool}`) : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(", ") : null;
}

/**
 * The way on after a resolve: the next oldest stuck claim the user can see — in the Stuck filter
 * they work in, when there is one (`within`) — or that there is none.
 */
export function NextStuckLink({
  nextStuck,
  now,
  within = null,
  backToStuck = false,
}: {
  nextStuck: NextStuckClaim | null;
  /** The instant the claim's age is told from. */
  now: Date;
  /** The filter the next claim was picked within (the Stuck page's), null for all the user's claims. */
  within?: StuckFilter | null;
  /** Offer the Stuck list when there is no next claim (not on the Stuck list itself). */
  backToStuck?: boolean;
}) {
  const scope = describeStuckFilter(within);
  if (nextStuck)
    return (
      <Link href={recordHrefFromStuck(nextStuck.key, within)} className="underline" data-testid="next-stuck-link">
        Next stuck claim{scope ? ` (${scope})` : ""}: <span className="font-mono">{nextStuck.ref}</span>{" "}
        {nextStuck.tool ?? "unrecorded tool"}, tenant {nextStuck.tenant},{" "}
        {formatAge(new Date(nextStuck.createdAt), now)} old
      </Link>
    );
  return (
    <span data-testid="no-more-stuck">
      {scope ? `No more stuck claims for ${scope}.` : "No more stuck claims you can see."}
      {backToStuck || scope ? (
        <>
          {" "}
          <Link href="/stuck" className="underline">
            {scope ? "All stuck claims" : "Back to Stuck"}
          </Link>
        </>
      ) : null}
    </span>
  );
}
