import "server-only";
import pg from "pg";
import { createPrismaClientOnPool, type Db } from "@/lib/db/prisma";

/** One statement as the console sent it to PostgreSQL: text and parameter values after Prisma's mapping. */
export type CapturedStatement = { text: string; values: unknown[] };

const WRAPPED = Symbol("bench.wrapped");
type QueryArgs = [string | { text: string; values?: unknown[] }, unknown?, unknown?];

/**
 * A pg pool that records every statement run through it while `capture` is active. The bench
 * runs the console's own functions (lookUpRefs, loadRecordsListing, getMetrics, …) on a Prisma
 * client over this pool once per input, then times the recorded SQL alone: the SQL side is the
 * console's queries exactly, not a re-typed copy of them.
 */
export class CapturingPool extends pg.Pool {
  private recording: CapturedStatement[] | null = null;

  // pg.Pool.query() goes through connect(), so wrapping the clients it hands out sees every statement once.
  override connect(): Promise<pg.PoolClient>;
  override connect(
    callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    if (callback) {
      super.connect((err, client, done) => {
        if (client) this.wrap(client);
        callback(err, client, done);
      });
      return;
    }
    return super.connect().then((client) => this.wrap(client));
  }

  async capture<T>(body: () => Promise<T>): Promise<{ result: T; statements: CapturedStatement[] }> {
    const statements: CapturedStatement[] = [];
    this.recording = statements;
    try {
      return { result: await body(), statements };
    } finally {
      this.recording = null;
    }
  }

  private wrap(client: pg.PoolClient): pg.PoolClient {
    const marked = client as pg.PoolClient & { [WRAPPED]?: true };
    if (marked[WRAPPED]) return client;
    marked[WRAPPED] = true;
    const query = client.query.bind(client) as (...args: QueryArgs) => unknown;
    (client as unknown as { query: (...args: QueryArgs) => unknown }).query = (...args: QueryArgs) => {
      const [first, second] = args;
      const text = typeof first === "string" ? first : first.text;
      const values = typeof first === "string" ? (Array.isArray(second) ? second : []) : (first.values ?? []);
      this.recording?.push({ text, values: [...values] });
      return query(...args);
    };
    return client;
  }
}

export function createCapturingDb(url: string): { pool: CapturingPool; db: Db } {
  const pool = new CapturingPool({ connectionString: url, max: 4 });
  return { pool, db: createPrismaClientOnPool(pool) };
}
