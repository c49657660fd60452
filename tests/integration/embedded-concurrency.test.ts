import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { createPrismaClient, type Db } from "@/lib/db/prisma";

// Many connections share the one PGlite backend. Each kind of client below sends its own statement
// text (so a Bind landing on another connection's Parse shows), in transactions and out, the way the
// console's requests overlap. The stock pglite-socket queue failed this with "bind message supplies
// 2 parameters, but prepared statement "" requires 3" and `portal "" does not exist`.
describe("the embedded database under concurrent connections", () => {
  let embedded: EmbeddedDatabase;
  let db: Db;
  beforeAll(async () => {
    embedded = await startEmbeddedDatabase({ inMemory: true, port: 0 });
    await migrate(embedded.url);
    db = createPrismaClient(embedded.url, 8);
  }, 120_000);
  afterAll(async () => {
    await db?.$disconnect();
    await embedded?.stop();
  });

  it("keeps each connection's prepared statement and portal its own: every answer right, no error", async () => {
    const failures: string[] = [];
    let answers = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = 0; i < 60; i++) {
          try {
            if (client % 3 === 0) {
              const rows = await db.$transaction(
                async (tx) => {
                  await tx.$queryRaw`SELECT set_config('statement_timeout', '5000', true)`;
                  return tx.$queryRaw<
                    { n: number }[]
                  >`SELECT count(*)::int AS n FROM idempotency WHERE tenant = ${`t${client}`} AND status = ${"x"}`;
                },
                { maxWait: 30_000 },
              );
              if (rows[0]?.n !== 0) failures.push(`transaction ${client}/${i}: ${JSON.stringify(rows)}`);
            } else if (client % 3 === 1) {
              const token = await db.apiToken.findFirst({ where: { tokenHash: `missing-${client}-${i}` } });
              if (token !== null) failures.push(`token ${client}/${i}`);
            } else {
              const rows = await db.$queryRaw<
                { n: number; c: string }[]
              >`SELECT ${i}::int + ${client}::int AS n, ${`c${client}`}::text AS c`;
              if (rows[0]?.n !== i + client || rows[0]?.c !== `c${client}`)
                failures.push(`select ${client}/${i}: ${JSON.stringify(rows)}`);
            }
            answers++;
          } catch (error) {
            failures.push(`${client}/${i}: ${(error as Error).message.slice(-160)}`);
          }
        }
      }),
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(answers).toBe(16 * 60);
  }, 120_000);
});
