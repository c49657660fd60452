import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";
import { behindTransactionPooler } from "@/lib/db/pooler";
import { createQuietPool } from "@/lib/db/quiet-pool";
import { CLIENT_MARGIN_MS, UNLIMITED_STATEMENTS, type DatabaseTimeouts } from "@/lib/db/timeouts";

export type Db = PrismaClient;

// What this module knows of each client, kept on globalThis as the clients are (lib/db/client.ts): the
// server's bundles each hold their own copy of this module, and a client made in one (the background
// work, started from instrumentation.ts) is served to the routes of the others.
const known = ((globalThis as { idemDbClients?: KnownClients }).idemDbClients ??= {
  rawPools: new WeakMap(),
  rawFaultHandlers: new WeakMap(),
  preparing: new WeakSet(),
  connectionSettings: new WeakMap(),
});
type KnownClients = {
  rawPools: WeakMap<object, pg.Pool>;
  rawFaultHandlers: WeakMap<object, (error: unknown) => Promise<never>>;
  preparing: WeakSet<object>;
  connectionSettings: WeakMap<object, pg.PoolConfig>;
};

// The pg pool under each client, for the few hot-path statements that skip Prisma's query
// compiler (rawPoolOf). Same connections, same statement and lock timeouts.
const rawPools = known.rawPools;

/** The pg pool a client built here runs on; undefined for a transaction client or one built elsewhere. */
export function rawPoolOf(db: Db): pg.Pool | undefined {
  return rawPools.get(db);
}

// What a client's own queries do with a failure (lib/db/client.ts: a page's database fault becomes the 503
// page), for the statements that skip the client on its pool: they must fail the same way.
const rawFaultHandlers = known.rawFaultHandlers;

/** The failure handling of `db`'s own queries, for a statement sent on its pool; undefined: rethrow. */
export function rawFaultHandlerOf(db: Db): ((error: unknown) => Promise<never>) | undefined {
  return rawFaultHandlers.get(db);
}

// The clients whose hot-path statements may be prepared by name on their connections (lib/db/prepared-statements.ts).
const preparing = known.preparing;

/** Lets rawQuery prepare `db`'s named statements on its connections (only where mayPrepareStatements says so). */
export function prepareStatementsOn(db: Db): void {
  preparing.add(db);
}

/** After a named statement met a connection that was not the one it was prepared on: unnamed from now on. */
export function stopPreparingStatements(db: Db): void {
  preparing.delete(db);
}

/** Whether rawQuery may send `db`'s named statements prepared. */
export function preparesStatements(db: Db): boolean {
  return preparing.has(db);
}

/**
 * The settings `db`'s pool was made with (URL, name, limits: plain values a worker thread can take), for a
 * reader with connections of its own that must be the same as the client's; undefined for a client built elsewhere.
 */
export function connectionSettingsOf(db: Db): pg.PoolConfig | undefined {
  return known.connectionSettings.get(db);
}

/** `wrapper` (an extended or proxied `db`) runs on `db`'s pool, its failures handled by `onFault`. */
export function sharePool(wrapper: object, db: Db, onFault?: (error: unknown) => Promise<never>): void {
  const pool = rawPools.get(db);
  if (pool) rawPools.set(wrapper, pool);
  const settings = known.connectionSettings.get(db);
  if (settings) known.connectionSettings.set(wrapper, settings);
  if (preparing.has(db)) preparing.add(wrapper);
  if (onFault) rawFaultHandlers.set(wrapper, onFault);
}

/**
 * How long a transaction may wait for a pooled connection before it starts. Prisma's default (2 s)
 * failed requests that were only queued: 300 concurrent API requests on the embedded database (one
 * backend, a pool of 4) waited longer than that for their turn.
 */
const TRANSACTION_MAX_WAIT_MS = 10_000;

/**
 * Builds a Prisma client on the pg driver adapter. Only lib/db calls this. statement_timeout,
 * lock_timeout, application_name and the parallel workers go in the startup packet, where PostgreSQL applies them (the
 * embedded database's socket server ignores them: lock_timeout reads 0 there), except behind a
 * transaction pooler, where the role carries the limits (lib/db/pooler.ts); query_timeout is pg's own
 * clock for a server that stopped answering altogether.
 */
export function createPrismaClient(
  url: string,
  poolSize = 4,
  timeouts: DatabaseTimeouts = UNLIMITED_STATEMENTS,
  applicationName?: string,
  /** The console's sessions on the primary: max_parallel_workers_per_gather (docs/scaling.md, "Parallel workers"). */
  parallelWorkers?: number,
): PrismaClient {
  const startup = !behindTransactionPooler(url);
  const settings: pg.PoolConfig = {
    connectionString: url,
    max: poolSize,
    ...(applicationName ? { application_name: applicationName } : {}),
    ...(parallelWorkers !== undefined && startup
      ? { options: `-c max_parallel_workers_per_gather=${parallelWorkers}` }
      : {}),
    connectionTimeoutMillis: timeouts.connectMs,
    ...(timeouts.statementMs
      ? {
          ...(startup ? { statement_timeout: timeouts.statementMs } : {}),
          query_timeout: timeouts.statementMs + CLIENT_MARGIN_MS,
        }
      : {}),
    ...(timeouts.lockMs && startup ? { lock_timeout: timeouts.lockMs } : {}),
  };
  const pool = createQuietPool(settings);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const client = new PrismaClient({ adapter, transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS } });
  rawPools.set(client, pool);
  known.connectionSettings.set(client, settings);
  return client;
}

/** A Prisma client on a pool the caller owns (the bench's statement-capturing pool); ending the pool is the caller's. */
export function createPrismaClientOnPool(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}
