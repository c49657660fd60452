import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import { ownerUrl, type DatabaseConnection } from "@/lib/db/connection";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { UserError } from "@/lib/errors/user-error";
import { ensureSearchIndexes, type SearchIndexReport } from "@/lib/search/search-indexes";

/**
 * `idem db index` as `npm start`, the demo and the CLI run it: as the schema's owner, CONCURRENTLY
 * on a PostgreSQL server (writers keep writing), plainly on the embedded one (PGlite serves one
 * connection, so nobody waits, and it has no concurrent build to offer).
 */
export async function runSearchIndexes(
  connection: DatabaseConnection,
  config: Pick<IdemConfig, "tools">,
  onChange?: (what: string) => void,
): Promise<SearchIndexReport> {
  const url = ownerUrl(connection);
  return ensureSearchIndexes(url, config, { concurrently: connection.source === "env", onChange }).catch(
    (error: unknown) => {
      if (error instanceof UserError) throw error;
      throw new UserError(`idem db index: ${describeDatabaseError(error, url)}`, 1);
    },
  );
}
