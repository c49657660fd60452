import "server-only";
import { openDatabaseConnection, type DatabaseConnection } from "@/lib/db/connection";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { UserError } from "@/lib/errors/user-error";

/**
 * Gives a CLI command a database for its duration: the URL it was given (--database-url), DATABASE_URL, the embedded database another
 * process serves, or the embedded database served by this process until the command ends.
 */
export async function withDatabase<T>(
  body: (db: Db, connection: DatabaseConnection) => Promise<T>,
  databaseUrl?: string,
): Promise<T> {
  const connection = await openDatabaseConnection(databaseUrl);
  const db = createPrismaClient(connection.url, 2);
  try {
    await db.$queryRaw`SELECT 1`.catch((error: unknown) => {
      throw new UserError(describeDatabaseError(error, connection.url), 1);
    });
    return await body(db, connection);
  } finally {
    await db.$disconnect();
    await connection.release();
  }
}

/** Only the connection, for commands that speak SQL through `pg` (migrate). */
export async function withConnection<T>(body: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
  const connection = await openDatabaseConnection();
  try {
    return await body(connection);
  } finally {
    await connection.release();
  }
}
