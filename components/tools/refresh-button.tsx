"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { postToApi } from "./post-json";

/** Re-lists every server now (POST /api/v1/tools/refresh), then re-renders the audit from the new snapshots. */
export function RefreshButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, startTransition] = useTransition();
  const hydrated = useHydrated();
  return (
    <div className="flex items-center gap-2">
      {error ? <span className="text-xs text-red-700" role="alert">{error}</span> : null}
      <button
        type="button"
        disabled={!hydrated || busy || refreshing}
        data-testid="refresh-listings"
        className="rounded-md bg-slate-900 px-3 py-1.5 text-xs font-medium text-white hover:bg-slate-700 disabled:opacity-60"
        onClick={async () => {
          setBusy(true);
          setError(null);
          const result = await postToApi("/api/v1/tools/refresh", "{}");
          setBusy(false);
          if (!result.ok) setError(result.message);
          else startTransition(() => router.refresh());
        }}
      >
        {busy ? "Listing tools…" : refreshing ? "Updating…" : "Refresh listings"}
      </button>
    </div>
  );
}
