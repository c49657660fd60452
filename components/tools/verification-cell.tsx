"use client";

import { useState } from "react";
import type { LatestVerification } from "@/lib/annotations/tool-verification-types";
import { Button } from "@/components/ui/button";
import { useHydrated } from "@/components/ui/use-hydrated";
import { VerificationBadge } from "./verification-badge";
import { VerifyToolDialog } from "./verify-tool-dialog";

/**
 * A tool's latest double-call test (or that it has none) and, for an admin on a server the file marks
 * "verify": true, the "Verify…" button that runs a new one.
 */
export function VerificationCell({
  server,
  tool,
  verification,
  canVerify,
  inputSchema,
}: {
  server: string | null;
  tool: string;
  verification: LatestVerification | null;
  canVerify: boolean;
  /** For the Verify dialog: the tool's input schema from its latest listing. */
  inputSchema: Record<string, unknown> | null;
}) {
  const [open, setOpen] = useState(false);
  const hydrated = useHydrated();
  return (
    <div className="text-xs" data-testid="verification-cell">
      {verification ? (
        <div
          data-testid="latest-verification"
          data-verdict={verification.verdict}
          data-stale={String(verification.stale)}
        >
          <VerificationBadge verdict={verification.verdict} step={verification.step} stale={verification.stale} />
          {/* The Verdict column's explanation quotes a current run's sentence (lib/annotations/verdicts.ts); a stale
              run's it does not, so only that one is said here: never the same sentence in two columns. */}
          {verification.stale ? (
            <p className="mt-1 text-slate-700" data-testid="latest-verification-summary">
              {verification.summary}
            </p>
          ) : null}
          <p className="mt-0.5 text-slate-500">
            <time dateTime={verification.finishedAt}>{verification.finishedAt.slice(0, 16).replace("T", " ")} UTC</time>{" "}
            {/* A narrow phone cell breaks an address after its @, not inside a word. */}
            by <BreakAfterAt text={verification.verifiedBy} />
            {verification.stale ? " · on an older listing" : ""}
          </p>
        </div>
      ) : (
        <p className="text-slate-500">never tested</p>
      )}
      {canVerify && server !== null ? (
        <>
          <Button
            variant="secondary"
            size="xs"
            className="mt-1"
            disabled={!hydrated}
            onClick={() => setOpen(true)}
            data-testid="verify-open"
          >
            {/* One flex item: the button's gap would otherwise part "Verify" from its ellipsis. */}
            <span>
              Verify<span className="sr-only">{` ${tool} on ${server}`}</span>…
            </span>
          </Button>
          {open ? (
            <VerifyToolDialog server={server} tool={tool} inputSchema={inputSchema} onClose={() => setOpen(false)} />
          ) : null}
        </>
      ) : null}
    </div>
  );
}

/** An address that may wrap after its @ (a <wbr>, nothing copied with it) and nowhere inside a word. */
function BreakAfterAt({ text }: { text: string }) {
  const at = text.indexOf("@");
  if (at < 0) return <span className="[overflow-wrap:normal]">{text}</span>;
  return (
    <span className="[overflow-wrap:normal]">
      {text.slice(0, at + 1)}
      <wbr />
      {text.slice(at + 1)}
    </span>
  );
}
