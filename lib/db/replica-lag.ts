import "server-only";
import { env } from "@/lib/config/environment";
import { getConfig } from "@/lib/config/load";
import { getDb, getReadDb, isReadReplicaConfigured } from "@/lib/db/client";
import { describeDatabaseError } from "@/lib/db/describe-error";

/**
 * How far the read replica is behind the primary:
 * - "caught_up": it has replayed all the WAL the primary had written when asked;
 * - "behind": `bytes` of WAL not replayed yet, written at most `lagMs` ago; `warn` past
 *   database.replicaLagWarning;
 * - "unreachable": the replica did not answer (the pages that read from it answer the 503 page).
 */
export type ReplicaLag =
  | { state: "caught_up"; bytes: 0; lagMs: 0; warn: false; warnAfterMs: number }
  | { state: "behind"; bytes: number; lagMs: number; warn: boolean; warnAfterMs: number }
  | { state: "unreachable"; reason: string; warn: true; warnAfterMs: number };

/** At most one measurement per second per process, whatever the number of requests. */
const CACHE_MS = 1_000;

let cached: { at: number; lag: Promise<ReplicaLag> } | null = null;
/** When this process last saw the replica caught up: nothing written before then is still missing. */
let lastCaughtUpAt: number | null = null;

/** The replica's lag, measured at most once a second; null without DATABASE_READ_URL (reads go to the primary). */
export function readReplicaLag(now = Date.now()): Promise<ReplicaLag> | null {
  if (!isReadReplicaConfigured()) return null;
  if (cached && now - cached.at < CACHE_MS) return cached.lag;
  cached = { at: now, lag: measureReplicaLag(now) };
  return cached.lag;
}

/**
 * Bytes behind, from the primary's pg_current_wal_lsn() and the replica's pg_last_wal_replay_lsn();
 * time behind only when bytes are: an idle replica's pg_last_xact_replay_timestamp() is the last
 * commit it replayed — old, without any lag. Behind, the missing WAL was written after both the last
 * replayed commit and the last time this process saw the replica caught up: the nearer of the two
 * bounds the lag (a replica that was idle an hour and is 1 ms from replaying a new commit is not an
 * hour behind when this process looked a second ago).
 */
async function measureReplicaLag(now: number): Promise<ReplicaLag> {
  const warnAfterMs = env().IDEM_DB_REPLICA_LAG_WARNING ?? getConfig().database.replicaLagWarning;
  try {
    const [primary] = await getDb().$queryRaw<{ lsn: string }[]>`SELECT pg_current_wal_lsn()::text AS lsn`;
    const [replica] = await getReadDb().$queryRaw<{ bytes: number | null; replayed_at: Date | null }[]>`
      SELECT GREATEST(pg_wal_lsn_diff(${primary!.lsn}::pg_lsn, pg_last_wal_replay_lsn()), 0)::float8 AS bytes,
             pg_last_xact_replay_timestamp() AS replayed_at`;
    if (replica?.bytes === null || replica?.bytes === undefined)
      return {
        state: "unreachable",
        reason: "DATABASE_READ_URL is not a standby (it replays no WAL)",
        warn: true,
        warnAfterMs,
      };
    if (replica.bytes === 0) {
      lastCaughtUpAt = now;
      return { state: "caught_up", bytes: 0, lagMs: 0, warn: false, warnAfterMs };
    }
    const bounds = [replica.replayed_at?.getTime(), lastCaughtUpAt].filter((t): t is number => typeof t === "number");
    const lagMs = bounds.length === 0 ? 0 : Math.max(0, now - Math.max(...bounds));
    return { state: "behind", bytes: replica.bytes, lagMs, warn: lagMs > warnAfterMs, warnAfterMs };
  } catch (error) {
    return { state: "unreachable", reason: describeDatabaseError(error), warn: true, warnAfterMs };
  }
}

/** For tests: the next readReplicaLag() measures again. */
export function forgetReplicaLag(): void {
  cached = null;
  lastCaughtUpAt = null;
}
