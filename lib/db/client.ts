import "server-only";
import { resolveExistingDatabaseUrl } from "@/lib/db/existing-database-url";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { UserError } from "@/lib/errors/user-error";

// One client per server process, kept across hot reloads in development.
const globalForDb = globalThis as unknown as { idemDb?: Db };

/** The console's single Prisma client. Lazy, so `next build` never needs a database. */
export function getDb(): Db {
  if (globalForDb.idemDb) return globalForDb.idemDb;
  const url = resolveExistingDatabaseUrl();
  if (!url) {
    throw new UserError(
      "No database: set DATABASE_URL, or start the console with `npm start` / `npm run demo`, which serve the embedded database.",
      1,
    );
  }
  globalForDb.idemDb = createPrismaClient(url);
  return globalForDb.idemDb;
}
