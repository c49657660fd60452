import type { ReplicaLagNotice } from "@/lib/pages/replica-lag-notice";

/** "12 s", "4 min 10 s", "2 h 5 min": how far behind, at a glance. */
export function formatLag(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The one banner of every page that reads from the read replica, shown when it is behind: what the
 * page shows may miss the newest writes, by about this much. Resolving still works (it runs on the
 * primary, and checks the row's version there).
 */
export function ReplicaLagBanner({ notice }: { notice: ReplicaLagNotice | null }) {
  if (!notice) return null;
  const lag = formatLag(notice.lagSeconds);
  return (
    <div
      role="status"
      data-testid="replica-lag"
      className="mb-4 max-w-5xl rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900"
    >
      <p>
        <span className="font-semibold">This page may be {lag} out of date.</span> It reads from the read replica, which
        is {lag} behind the primary ({formatBytes(notice.bytesBehind)} of changes not applied yet): the newest claims,
        completions and resolutions may be missing here. Resolving works as usual — it runs on the primary.
      </p>
    </div>
  );
}
