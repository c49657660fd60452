import "server-only";
import { env } from "@/lib/config/environment";
import { parseDatabaseUrl } from "@/lib/db/database-url";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { findRunningEmbeddedDatabase } from "@/lib/db/embedded-record";

export type DatabaseSource = "env" | "embedded-running" | "embedded-started";
export type DatabaseConnection = { url: string; source: DatabaseSource; release(): Promise<void> };

/**
 * Where this process's data lives: the URL a command was given, else DATABASE_URL when set; otherwise the embedded database,
 * joining the process already serving it or serving it ourselves until release().
 */
export async function openDatabaseConnection(explicitUrl?: string): Promise<DatabaseConnection> {
  // A command's own --database-url (verify-tool in a server's CI) wins over the environment.
  if (explicitUrl !== undefined)
    return { url: parseDatabaseUrl(explicitUrl, "--database-url").toString(), source: "env", release: async () => {} };
  const fromEnv = env().DATABASE_URL;
  if (fromEnv !== undefined) {
    return { url: parseDatabaseUrl(fromEnv).toString(), source: "env", release: async () => {} };
  }
  const running = findRunningEmbeddedDatabase();
  if (running) return { url: running, source: "embedded-running", release: async () => {} };
  const embedded = await startEmbeddedDatabase();
  return { url: embedded.url, source: "embedded-started", release: () => embedded.stop() };
}

/**
 * The URL migrations and `db grant` run with: DATABASE_MIGRATE_URL (the schema's owner) when set,
 * so the console itself can serve as a least-privilege role; otherwise the serving connection's.
 */
export function ownerUrl(connection: DatabaseConnection, explicit?: string): string {
  const url = explicit ?? env().DATABASE_MIGRATE_URL;
  return url !== undefined && url.trim() !== "" ? parseDatabaseUrl(url).toString() : connection.url;
}
