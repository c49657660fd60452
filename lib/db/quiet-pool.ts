import pg from "pg";

/**
 * A pg pool that hears its connections fail. A connection the server ends (pg_terminate_backend, a
 * restart) emits "error"; the statement on it fails and is answered, and the pool replaces it. Unheard,
 * the event would be an uncaught exception. Free of "server-only": the export's worker thread makes one too.
 */
export function createQuietPool(settings: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(settings);
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}
