import type { Db } from "@/lib/db/prisma";

/**
 * A test that writes rows stamped minutes in the past is a backfill: minutes already rolled into
 * slices (by any file's metrics request) would not show them until their hour closes
 * (lib/metrics/minute-rollup.ts). Forgetting those slices has them rolled again on the next read.
 */
export async function forgetMinuteSlicesSince(db: Db, since: Date): Promise<void> {
  await db.$transaction([
    db.$executeRaw`DELETE FROM metrics_rollup_minute WHERE minute >= date_trunc('minute', ${since}::timestamptz)`,
    db.$executeRaw`DELETE FROM metrics_minute WHERE minute >= date_trunc('minute', ${since}::timestamptz)`,
  ]);
}
