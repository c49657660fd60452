"use client";

import { CopyButton } from "@/components/ui/copy-button";
import { useHydrated } from "@/components/ui/use-hydrated";

/**
 * A stuck claim seen by someone who may not resolve it (a viewer): who can, and the record's link
 * to send them. The link is the page's own address once the browser knows its origin. With nobody
 * to ask (no processor), only an admin's forced release can clear it.
 */
export function AskAnOperator({ recordKey, nobodyToAsk }: { recordKey: string; nobodyToAsk: boolean }) {
  const hydrated = useHydrated();
  const path = `/records/${recordKey}`;
  const link = hydrated ? `${window.location.origin}${path}` : path;
  return (
    <div
      className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950"
      data-testid="ask-an-operator"
    >
      <p className="font-medium">
        {nobodyToAsk ? "An admin can release this claim by force." : "An operator or admin can resolve this claim."}
      </p>
      <p className="mt-1 text-xs">
        {nobodyToAsk
          ? "Your role cannot change the record."
          : "Your role may ask the processor but not change the record."}{" "}
        Send them this record&apos;s link:
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code className="break-all rounded bg-white px-1.5 py-0.5 font-mono text-xs" data-testid="record-link">
          {link}
        </code>
        <CopyButton text={link} label="Copy link" />
      </div>
    </div>
  );
}
