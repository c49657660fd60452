import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";

export type Db = PrismaClient;

/** Builds a Prisma client on the pg driver adapter. Only lib/db calls this. */
export function createPrismaClient(url: string, poolSize = 4): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}
