import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { scanDuplicates } from "./scan-duplicates";

/** A background round's duplicate scan: the server's (lib/startup/background-work.ts) and `idem bench-writers`'s own. */
export function scanInRound(db: Db, config: Pick<IdemConfig, "tools">, now: Date) {
  // Up to 10 s a round, so a first scan of 72 h (864 chunks) is done in a round or a few, not minutes.
  return scanDuplicates(db, config, now, { skipWhenBusy: true, maxChunks: 2_000, budgetMs: 10_000 });
}
