import "server-only";
import { getDb } from "@/lib/db/client";
import { rawPoolOf } from "@/lib/db/prisma";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { readReplicaLag, type ReplicaLag } from "@/lib/db/replica-lag";

/** What /api/health says of the read replica (DATABASE_READ_URL): its state and lag, and whether that is past the warning. */
export type ReplicaHealth =
  | { state: "caught_up" | "behind"; bytesBehind: number; lagSeconds: number; warning: boolean }
  | { state: "unreachable"; reason: string };

export type DatabaseHealth = { ok: boolean; database: string; replica?: ReplicaHealth };

/**
 * The primary answers a trivial query; with a read replica, it answers too (the pages read from it:
 * without it they answer the 503 page, so the console is not healthy) and its lag is reported.
 */
export async function checkDatabaseHealth(): Promise<DatabaseHealth> {
  const [database, lag] = await Promise.all([checkPrimary(), readReplicaLag()]);
  if (!lag) return database;
  const replica = replicaHealth(lag);
  return { ...database, ok: database.ok && replica.state !== "unreachable", replica };
}

async function checkPrimary(): Promise<DatabaseHealth> {
  try {
    // Straight on the client's pg pool (same connections and limits): Prisma's raw-query path cost
    // ~0.4 ms of a ~3 ms answer (scripts/trivial-route-breakdown.ts).
    const db = getDb();
    const pool = rawPoolOf(db);
    await (pool ? pool.query("SELECT 1") : db.$queryRaw`SELECT 1`);
    return { ok: true, database: "reachable" };
  } catch (error) {
    return { ok: false, database: withoutUrl(describeDatabaseError(error)) };
  }
}

function replicaHealth(lag: ReplicaLag): ReplicaHealth {
  if (lag.state === "unreachable") return { state: "unreachable", reason: withoutUrl(lag.reason) };
  return { state: lag.state, bytesBehind: lag.bytes, lagSeconds: lag.lagMs / 1000, warning: lag.warn };
}

const withoutUrl = (message: string) => message.replace(/ at postgres\S*/g, "");
