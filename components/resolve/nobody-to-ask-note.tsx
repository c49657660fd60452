import { Link } from "@/components/ui/link";
import { nobodyToAskAdvice } from "@/lib/resolve/nobody-to-ask";

/** The record page's place where an admin forces a release (its "Ask the processor, then resolve" panel). */
export function forceReleaseHref(recordKey: string): string {
  return `/records/${encodeURIComponent(recordKey)}#resolve`;
}

/**
 * Said where an answer is unknown because nobody can be asked: what can clear the claim instead
 * (a processor in idem.config.json, or a forced release) and, for an admin, the way to the latter.
 */
export function NobodyToAskNote({
  recordKey,
  tool,
  mayForceRelease,
}: {
  recordKey: string;
  tool: string | null;
  mayForceRelease: boolean;
}) {
  return (
    <p className="mt-1" data-testid="nobody-to-ask">
      {nobodyToAskAdvice(tool)}{" "}
      {mayForceRelease ? (
        <Link href={forceReleaseHref(recordKey)} className="font-medium underline" data-testid="force-release-link">
          Force release on the record page
        </Link>
      ) : (
        <span>An admin can do that on the record page.</span>
      )}
    </p>
  );
}
