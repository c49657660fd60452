import "server-only";
import pg from "pg";
import { env } from "@/lib/config/environment";
import { parseDatabaseUrl } from "@/lib/db/database-url";

export const DEFAULT_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

export type BenchDatabase = { name: string; url: string; drop(): Promise<void> };

/**
 * A fresh database for one bench run, on the server DATABASE_URL names: the bench loads
 * millions of rows and must never write them into a database someone uses.
 */
export async function createBenchDatabase(
  serverUrl = env().DATABASE_URL ?? DEFAULT_SERVER_URL,
): Promise<BenchDatabase> {
  const admin = parseDatabaseUrl(serverUrl);
  const name = `idem_bench_${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${Math.random().toString(16).slice(2, 6)}`;
  await withAdmin(admin, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(admin.toString());
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      withAdmin(admin, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

async function withAdmin<T>(url: URL, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}
