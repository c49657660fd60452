"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { Button } from "@/components/ui/button";
import { sendMutation } from "@/components/ui/send-mutation";

/** Re-lists every server now (POST /api/v1/tools/refresh), then re-renders the audit from the new snapshots. */
export function RefreshButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, startTransition] = useTransition();
  const hydrated = useHydrated();
  return (
    <div className="flex items-center gap-2">
      {error ? (
        <span className="text-xs text-red-700" role="alert">
          {error}
        </span>
      ) : null}
      <Button
        variant="primary"
        size="sm"
        className="py-1.5"
        disabled={!hydrated || busy || refreshing}
        data-testid="refresh-listings"
        onClick={async () => {
          setBusy(true);
          setError(null);
          const result = await sendMutation("/api/v1/tools/refresh", { json: {} });
          setBusy(false);
          if (!result.ok) setError(result.message);
          else startTransition(() => router.refresh());
        }}
      >
        {busy ? "Listing tools…" : refreshing ? "Updating…" : "Refresh listings"}
      </Button>
    </div>
  );
}
