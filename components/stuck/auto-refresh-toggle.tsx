"use client";

import { useQueryStates } from "nuqs";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { formatAge } from "@/lib/format/relative-time";
import { Checkbox } from "@/components/ui/checkbox";
import { AUTO_REFRESH_MS, stuckSearchParams } from "@/components/stuck/stuck-search-params";

/**
 * Auto-refresh, off by default and kept in the URL (`refresh=true`) so a wall screen's link
 * keeps it on. A refresh re-renders the server page in place (router.refresh): selections and an
 * open bulk plan survive it. Hidden tabs do not refresh.
 */
export function AutoRefreshToggle({ generatedAt }: { generatedAt: string }) {
  const router = useRouter();
  const [{ refresh }, setParams] = useQueryStates(stuckSearchParams, { shallow: true, history: "replace" });
  const [now, setNow] = useState<Date | null>(null);

  useEffect(() => {
    if (!refresh) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, AUTO_REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh, router]);

  // "as of 12 s ago" ticks on the client only, so server and client renders agree.
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the clock starts on the client, after hydration
    setNow(new Date());
    const timer = setInterval(() => setNow(new Date()), 5_000);
    return () => clearInterval(timer);
  }, [generatedAt]);

  return (
    <div className="flex items-center gap-3 text-sm text-slate-700">
      <label className="inline-flex items-center gap-1.5">
        <Checkbox
          checked={refresh}
          onChange={(e) => void setParams({ refresh: e.target.checked ? true : null })}
          data-testid="auto-refresh"
        />
        Auto-refresh every {AUTO_REFRESH_MS / 1000} s
      </label>
      <span className="text-xs text-slate-500" title={generatedAt}>
        as of {now ? `${formatAge(new Date(generatedAt), now)} ago` : "now"}
      </span>
    </div>
  );
}
