import "server-only";
import { env } from "@/lib/config/environment";
import { parseDatabaseUrl } from "@/lib/db/database-url";
import { findRunningEmbeddedDatabase } from "@/lib/db/embedded-record";

/**
 * The database a server process joins without starting anything: DATABASE_URL, or the embedded
 * database the launcher (`npm start`, `npm run demo`) is serving.
 */
export function resolveExistingDatabaseUrl(): string | null {
  const fromEnv = env().DATABASE_URL;
  if (fromEnv !== undefined) return parseDatabaseUrl(fromEnv).toString();
  return findRunningEmbeddedDatabase();
}
