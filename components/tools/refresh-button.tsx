"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";

/** Re-lists every server now (the tools refresh route), then re-renders the audit from the new snapshots. */
export function RefreshButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string; count: number } | null>(null);
  const [refreshing, startTransition] = useTransition();
  const hydrated = useHydrated();
  return (
    <div className="flex items-center gap-2">
      <ActionResult resultKey={result?.count ?? null} label="refresh result">
        {result ? (
          <span className={`text-xs ${result.ok ? "text-emerald-700" : "text-red-700"}`}>{result.text}</span>
        ) : null}
      </ActionResult>
      <Button
        variant="primary"
        size="sm"
        className="py-1.5"
        disabled={!hydrated || busy || refreshing}
        data-testid="refresh-listings"
        onClick={async () => {
          setBusy(true);
          const answer = await callApi(api.toolsRefresh, { json: {} });
          setBusy(false);
          setResult((last) => ({
            ok: answer.ok,
            text: answer.ok ? "Listed every server again." : answer.message,
            count: (last?.count ?? 0) + 1,
          }));
          if (answer.ok) startTransition(() => router.refresh());
        }}
      >
        {busy ? "Listing tools…" : refreshing ? "Updating…" : "Refresh listings"}
      </Button>
    </div>
  );
}
