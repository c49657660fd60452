import "server-only";
import { getConfig } from "@/lib/config/load";
import { consoleApplicationName } from "@/lib/db/application-name";
import { resolveExistingDatabaseUrl } from "@/lib/db/existing-database-url";
import { rethrowForPage } from "@/lib/db/page-fault";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { consoleTimeouts, type ConsoleRequestKind } from "@/lib/db/timeouts";
import { UserError } from "@/lib/errors/user-error";

// One client per kind of request per server process, kept across hot reloads in development.
const globalForDb = globalThis as unknown as { idemDb?: Db; idemExportDb?: Db };

const POOL_SIZE: Record<ConsoleRequestKind, number> = { interactive: 4, export: 2 };

/** The console's Prisma client for pages and API calls (short statement limit). Lazy, so `next build` never needs a database. */
export function getDb(): Db {
  return (globalForDb.idemDb ??= createConsoleClient("interactive"));
}

/** The client for downloads (records export): its own small pool with the longer export statement limit. */
export function getExportDb(): Db {
  return (globalForDb.idemExportDb ??= createConsoleClient("export"));
}

function createConsoleClient(kind: ConsoleRequestKind): Db {
  const url = resolveExistingDatabaseUrl();
  if (!url) {
    throw new UserError(
      "No database: set DATABASE_URL, or start the console with `npm start` / `npm run demo`, which serve the embedded database.",
      1,
    );
  }
  const client = createPrismaClient(
    url,
    POOL_SIZE[kind],
    consoleTimeouts(kind, getConfig().database),
    consoleApplicationName(kind),
  );
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
  return new Proxy(extended, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== "$transaction" || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch(rethrowForPage);
    },
  });
}
