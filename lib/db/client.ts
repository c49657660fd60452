import "server-only";
import { getConfig } from "@/lib/config/load";
import { env } from "@/lib/config/environment";
import { consoleApplicationName } from "@/lib/db/application-name";
import { parseDatabaseUrl } from "@/lib/db/database-url";
import { embeddedDataDir, findRunningEmbeddedDatabase } from "@/lib/db/embedded-record";
import { resolveExistingDatabaseUrl } from "@/lib/db/existing-database-url";
import { rethrowForPage } from "@/lib/db/page-fault";
import { mayPrepareStatements } from "@/lib/db/prepared-statements";
import { createPrismaClient, prepareStatementsOn, rawPoolOf, sharePool, type Db } from "@/lib/db/prisma";
import { consoleTimeouts, type ConsoleRequestKind } from "@/lib/db/timeouts";
import { UserError } from "@/lib/errors/user-error";

// One client per kind of request and server per process, kept across hot reloads in development.
const globalForDb = globalThis as unknown as {
  idemDb?: Db;
  idemExportDb?: Db;
  idemReadDb?: Db;
  idemExportReadDb?: Db;
};

const POOL_SIZE: Record<ConsoleRequestKind, number> = { interactive: 4, export: 2 };

/**
 * How long a request waits for a pooled connection on the embedded database. Its one backend runs one
 * statement at a time, so under a burst the pool's queue is the database's own queue: 300 requests at
 * once on a loaded machine waited up to 23 s, and the 5 s connect limit answered half of them 503.
 */
export const EMBEDDED_POOL_WAIT_MS = 60_000;

/** The console's Prisma client for pages and API calls (short statement limit). Lazy, so `next build` never needs a database. */
export function getDb(): Db {
  return (globalForDb.idemDb ??= createConsoleClient("interactive"));
}

/**
 * The client for downloads (records export): a small pool with the longer export statement limit. An export's
 * rows are read on the export's worker thread, on connections made with this client's settings
 * (lib/records/export-worker.ts), so this pool itself stays unconnected.
 */
export function getExportDb(): Db {
  return (globalForDb.idemExportDb ??= createConsoleClient("export"));
}

/**
 * Where reads that may be a moment old go — lists, facets, counts, metrics, the tools evidence,
 * exports: the read replica DATABASE_READ_URL names, with the same limits and error mapping as the
 * primary's; without one, the primary's own client. Never for a write, nor for the read right after
 * one (docs/architecture.md, "Reads and the replica"): a hot standby refuses writes, and lags.
 */
export function getReadDb(kind: ConsoleRequestKind = "interactive"): Db {
  if (!isReadReplicaConfigured()) return kind === "export" ? getExportDb() : getDb();
  if (kind === "export") return (globalForDb.idemExportReadDb ??= createConsoleClient("export", "replica"));
  return (globalForDb.idemReadDb ??= createConsoleClient("interactive", "replica"));
}

/**
 * Whether a read may start beside its token check (lib/auth/overlapped-token-check.ts), taking a
 * second connection: not on the embedded database, whose one backend runs one statement at a time
 * (nothing to overlap, and half the pool for the others), and not while any request waits for a
 * connection of the request pools: the overlap must never be what makes another request wait.
 */
export function readsMayStartBesideChecks(): boolean {
  if (servesEmbeddedDatabase()) return false;
  return ![globalForDb.idemDb, globalForDb.idemReadDb].some((db) => {
    const pool = db && rawPoolOf(db);
    return pool !== undefined && pool.waitingCount > 0;
  });
}

let embeddedAnswer: { asked: string; embedded: boolean } | undefined;

/**
 * Whether the console's database is the embedded one: no DATABASE_URL, or the URL the launcher hands
 * the server (`npm run demo`, `npm start`), which is the one the data directory's record names.
 */
export function servesEmbeddedDatabase(): boolean {
  const url = env().DATABASE_URL;
  if (url === undefined) return true;
  const asked = `${url}\n${embeddedDataDir()}`;
  if (embeddedAnswer?.asked !== asked) {
    const running = findRunningEmbeddedDatabase();
    const embedded = running !== null && parseDatabaseUrl(running).toString() === parseDatabaseUrl(url).toString();
    embeddedAnswer = { asked, embedded };
  }
  return embeddedAnswer.embedded;
}

/** True when DATABASE_READ_URL names a replica: getReadDb() is then another server than getDb(). */
export function isReadReplicaConfigured(): boolean {
  return env().DATABASE_READ_URL !== undefined;
}

function readReplicaUrl(): string {
  return parseDatabaseUrl(env().DATABASE_READ_URL!, "DATABASE_READ_URL").toString();
}

function primaryUrl(): string {
  const url = resolveExistingDatabaseUrl();
  if (!url) {
    throw new UserError(
      "No database: set DATABASE_URL, or start the console with `npm start` / `npm run demo`, which serve the embedded database.",
      1,
    );
  }
  return url;
}

function createConsoleClient(kind: ConsoleRequestKind, server: "primary" | "replica" = "primary"): Db {
  const url = server === "primary" ? primaryUrl() : readReplicaUrl();
  // Named in pg_stat_activity (lib/db/application-name.ts) on whichever server the URL reaches; a URL
  // that names its own application_name keeps it (pg reads the URL's parameters over the options).
  const config = getConfig().database;
  const timeouts = consoleTimeouts(kind, config);
  if (servesEmbeddedDatabase()) timeouts.connectMs = Math.max(timeouts.connectMs, EMBEDDED_POOL_WAIT_MS);
  // Parallel workers are bounded where the writers write; a replica keeps its own server's setting, and the
  // embedded database (one process) starts none.
  const parallelWorkers = server === "primary" && !servesEmbeddedDatabase() ? config.parallelWorkers : undefined;
  const client = createPrismaClient(url, POOL_SIZE[kind], timeouts, consoleApplicationName(kind), parallelWorkers);
  if (mayPrepareStatements(url, servesEmbeddedDatabase())) prepareStatementsOn(client);
  // Every query's failure passes rethrowForPage: a page answers the 503 page, everything else the error.
  const extended = client.$extends({
    query: {
      async $allOperations({ args, query }) {
        try {
          return await query(args);
        } catch (error) {
          return rethrowForPage(error);
        }
      },
    },
  }) as unknown as Db;
  // A transaction that cannot start (no connection for BEGIN) fails outside any operation.
  const db = new Proxy(extended, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== "$transaction" || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch(rethrowForPage);
    },
  });
  sharePool(db, client, rethrowForPage);
  return db;
}
