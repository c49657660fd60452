import { Link } from "@/components/ui/link";
import { nobodyToAskAdvice } from "@/lib/resolve/nobody-to-ask";
import { recordHrefFromStuck } from "@/lib/records/record-page-params";
import type { StuckFilter } from "@/lib/records/stuck-claims";

/**
 * Said on a Stuck row where nobody can be asked (`asked`: after an answer said so; else known from
 * the configuration before anyone asked): what can clear the claim instead and, for an admin, the
 * way to its forced release, carrying the Stuck filter for the next claim offered after it.
 */
export function NobodyToAskNote({
  recordKey,
  tool,
  mayForceRelease,
  within,
  asked,
}: {
  recordKey: string;
  tool: string | null;
  mayForceRelease: boolean;
  within: StuckFilter;
  asked: boolean;
}) {
  return (
    <p className="mt-1" data-testid="nobody-to-ask">
      {/* Before asking, one short line per row (a list may hold dozens): the record page says the rest. */}
      {asked
        ? nobodyToAskAdvice(tool)
        : tool === null
          ? "No tool recorded: no processor to ask."
          : `No processor to ask for ${tool}.`}{" "}
      {mayForceRelease ? (
        <Link
          href={recordHrefFromStuck(recordKey, within, { toResolve: true })}
          className="font-medium underline"
          data-testid="force-release-link"
        >
          Force release on the record page
        </Link>
      ) : (
        <span>
          {asked ? "An admin can do that on the record page." : "An admin can force a release on the record page."}
        </span>
      )}
    </p>
  );
}
