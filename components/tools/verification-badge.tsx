import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { VerificationVerdict } from "@/lib/annotations/tool-verification-types";

const TONES: Record<VerificationVerdict, BadgeTone> = { verified: "good", failed: "danger", inconclusive: "warn" };

/** A double-call test's verdict in its tone, the step it failed at, and "stale" when a newer listing changed the tool. */
export function VerificationBadge({
  verdict,
  step,
  stale,
  solid,
}: {
  verdict: VerificationVerdict;
  step: string | null;
  stale?: boolean;
  solid?: boolean;
}) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1" data-testid="verification-badge">
      <Badge tone={stale ? "neutral" : TONES[verdict]} solid={solid} data-verification={verdict}>
        {verdict}
        {step && verdict !== "verified" ? ` at ${step}` : ""}
      </Badge>
      {stale ? (
        <Badge
          tone="warn"
          data-stale="true"
          title="The tool's listing entry has changed since this run (or the tool is gone): it proves nothing about the current one"
        >
          stale
        </Badge>
      ) : null}
    </span>
  );
}
