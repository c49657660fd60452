import "server-only";
import { getDb } from "@/lib/db/client";
import { describeDatabaseError } from "@/lib/db/describe-error";

export async function checkDatabaseHealth(): Promise<{ ok: boolean; database: string }> {
  try {
    await getDb().$queryRaw`SELECT 1`;
    return { ok: true, database: "reachable" };
  } catch (error) {
    return { ok: false, database: describeDatabaseError(error).replace(/ at postgres\S*/g, "") };
  }
}
