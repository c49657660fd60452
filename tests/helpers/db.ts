import { afterAll, inject } from "vitest";
import { createPrismaClient, type Db } from "@/lib/db/prisma";

/** A Prisma client on the run's test database, disconnected after the file. */
export function connectTestDb(): Db {
  const db = createPrismaClient(inject("databaseUrl"), 4);
  afterAll(() => db.$disconnect());
  return db;
}
