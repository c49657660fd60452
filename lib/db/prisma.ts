import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";

export type Db = PrismaClient;

/** Builds a Prisma client on the pg driver adapter. Only lib/db calls this. */
export function createPrismaClient(url: string, poolSize = 4): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}

/** A Prisma client on a pool the caller owns (the bench's statement-capturing pool); ending the pool is the caller's. */
export function createPrismaClientOnPool(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}
