import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { PrismaClient } from "@/generated/prisma/client";

export type Db = PrismaClient;

/**
 * How long a transaction may wait for a pooled connection before it starts. Prisma's default (2 s)
 * failed requests that were only queued: 300 concurrent API requests on the embedded database (one
 * backend, a pool of 4) waited longer than that for their turn.
 */
const TRANSACTION_MAX_WAIT_MS = 10_000;

/** Builds a Prisma client on the pg driver adapter. Only lib/db calls this. */
export function createPrismaClient(url: string, poolSize = 4): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter, transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS } });
}

/** A Prisma client on a pool the caller owns (the bench's statement-capturing pool); ending the pool is the caller's. */
export function createPrismaClientOnPool(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}
