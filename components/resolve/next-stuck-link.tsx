import Link from "next/link";
import { formatAge } from "@/lib/format/relative-time";
import type { NextStuckClaim } from "@/lib/records/stuck-claims";

/** The way on after a resolve: the next oldest stuck claim the user can see, or that there is none. */
export function NextStuckLink({
  nextStuck,
  now,
  backToStuck = false,
}: {
  nextStuck: NextStuckClaim | null;
  /** The instant the claim's age is told from. */
  now: Date;
  /** Offer the Stuck list when there is no next claim (not on the Stuck list itself). */
  backToStuck?: boolean;
}) {
  if (nextStuck)
    return (
      <Link href={`/records/${nextStuck.key}`} className="underline" data-testid="next-stuck-link">
        Next stuck claim: <span className="font-mono">{nextStuck.ref}</span> {nextStuck.tool ?? "unrecorded tool"},
        tenant {nextStuck.tenant}, {formatAge(new Date(nextStuck.createdAt), now)} old
      </Link>
    );
  return (
    <span data-testid="no-more-stuck">
      No more stuck claims you can see.
      {backToStuck ? (
        <>
          {" "}
          <Link href="/stuck" className="underline">
            Back to Stuck
          </Link>
        </>
      ) : null}
    </span>
  );
}
