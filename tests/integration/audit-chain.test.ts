import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditChainContent, type AuditChainRowText } from "@/lib/audit/audit-chain-content";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { writeAudit } from "@/lib/audit/write-audit";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { migrate } from "@/lib/db/migrate";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { startPgBouncer, type PgBouncer } from "../helpers/pgbouncer";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { systemAdmin } from "../helpers/system-admin";

// The audit hash chain (docs/audit-chain.md) on a database of its own: these tests break the chain
// on purpose, which must not reach the files that share the run's database.
const actor = systemAdmin("chain-test", { displayName: "chain" });
const CHAIN_LOCK = 7270736932;

let database: TestDatabase;
let db: Db;
let owner: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createPrismaClient(database.url, 4);
  owner = quiet(new pg.Pool({ connectionString: database.url, max: 10 }));
});

/**
 * A pool whose connections may be ended under it (the database dropped WITH (FORCE) at the end, a client
 * still checked out by a test that failed): the error is the query's to report, never an uncaught exception.
 */
function quiet(pool: pg.Pool): pg.Pool {
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}
afterAll(async () => {
  await db?.$disconnect();
  await owner?.end();
  await database?.drop();
});

/** As the schema's owner, with the append-only trigger out of the way: what someone with the keys could do. */
async function tamper(sql: string, values: unknown[]): Promise<void> {
  const client = await owner.connect();
  try {
    await client.query("BEGIN");
    await client.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
    await client.query(sql, values);
    await client.query(`ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

async function insertFrom(client: pg.PoolClient | pg.Client, action: string): Promise<void> {
  await client.query(
    `INSERT INTO audit_log (actor, actor_role, action, reason) VALUES ('system:chain-test', 'admin', $1, 'concurrent')`,
    [action],
  );
}

describe("the audit chain", { timeout: 120_000 }, () => {
  it("hashes what the rows hold: an untouched chain verifies, and Node's canonical content is the trigger's byte for byte", async () => {
    await writeAudit(db, actor, {
      action: "chain.first",
      key: "k-é",
      tenant: "t1",
      before: { b: 1, a: [1.5, "ü", null] },
    });
    await writeAudit(db, actor, { action: "chain.empty", reason: "", evidence: {} });
    await writeAudit(db, actor, { action: "chain.nulls" });
    await writeAudit(db, actor, {
      action: "chain.text",
      reason: 'quote " and\nnewline',
      after: { s: "1:2-", n: 12345678901234567890 },
    });
    // Another session time zone: the hash takes the instant, never its text.
    await owner.query("SET TimeZone = 'Asia/Kolkata'");

    const result = await verifyAuditChain(database.url);
    expect(result).toMatchObject({ ok: true, rows: 4, firstBad: null });
    const { rows } = await owner.query<{ id: string; hash: string; in_db: string }>(
      "SELECT id::text, hash, audit_log_chain_content(a) AS in_db FROM audit_log a ORDER BY chain_seq",
    );
    expect(result.throughId).toBe(rows[3]!.id);
    expect(result.headHash).toBe(rows[3]!.hash);
    const raw = await owner.query<AuditChainRowText & { in_db: string }>({
      text: `SELECT chain_seq AS "chainSeq", id, at, actor, actor_role AS "actorRole", action, key, tenant, before, after, reason, evidence,
                    prev_hash AS "prevHash", audit_log_chain_content(a) AS in_db FROM audit_log a ORDER BY chain_seq`,
      types: { getTypeParser: () => (value: string) => value },
    });
    for (const row of raw.rows) expect(auditChainContent(row)).toBe(row.in_db);
  });

  it("names a row the owner edited (content), and the row after one the owner deleted (link)", async () => {
    const { rows } = await owner.query<{ id: string }>("SELECT id::text FROM audit_log ORDER BY chain_seq");
    const [, second, third] = rows.map((r) => r.id);

    await tamper("UPDATE audit_log SET reason = 'nothing to see' WHERE id = $1", [second]);
    const edited = await verifyAuditChain(database.url);
    expect(edited).toMatchObject({
      ok: false,
      rows: 2,
      throughId: rows[0]!.id,
      firstBad: { id: second, problem: "content" },
    });
    await tamper("UPDATE audit_log SET reason = '' WHERE id = $1", [second]);
    expect((await verifyAuditChain(database.url)).ok).toBe(true);

    // A JSON column is hashed too: one changed value inside it is found.
    await tamper(`UPDATE audit_log SET before = jsonb_set(before, '{b}', '2') WHERE action = 'chain.first'`, []);
    expect((await verifyAuditChain(database.url)).firstBad).toMatchObject({ id: rows[0]!.id, problem: "content" });
    await tamper(`UPDATE audit_log SET before = jsonb_set(before, '{b}', '1') WHERE action = 'chain.first'`, []);

    await tamper("DELETE FROM audit_log WHERE id = $1", [second]);
    const deleted = await verifyAuditChain(database.url);
    expect(deleted).toMatchObject({ ok: false, throughId: rows[0]!.id, firstBad: { id: third, problem: "link" } });
    expect(deleted.firstBad!.detail).toMatch(/removed or slipped in/);
    // Verifying from the row after the gap checks its link too.
    expect((await verifyAuditChain(database.url, { fromId: third })).firstBad).toMatchObject({
      id: third,
      problem: "link",
    });
  });

  it("chains in the order the lock was granted, not the order ids were drawn", async () => {
    // A new, empty chain: the owner, both triggers off, at once.
    await owner.query(`BEGIN; ALTER TABLE audit_log DISABLE TRIGGER USER; TRUNCATE audit_log;
                       ALTER TABLE audit_log ENABLE TRIGGER USER; COMMIT`);

    const holder = await owner.connect();
    const waiter = await owner.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1)", [CHAIN_LOCK]);
      // The waiter draws its id first, then waits for the lock inside its insert's trigger.
      const waiting = insertFrom(waiter, "chain.drawn_first");
      await expect
        .poll(
          async () =>
            (await owner.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
              .rows[0].n,
        )
        .toBe(1);
      await insertFrom(holder, "chain.locked_first");
      await holder.query("COMMIT");
      await waiting;
    } finally {
      holder.release();
      waiter.release();
    }
    const { rows } = await owner.query<{ action: string; id: string; chain_seq: string }>(
      "SELECT action, id::text, chain_seq::text FROM audit_log ORDER BY chain_seq",
    );
    expect(rows.map((r) => r.action)).toEqual(["chain.locked_first", "chain.drawn_first"]);
    expect(BigInt(rows[1]!.id)).toBeLessThan(BigInt(rows[0]!.id));
    expect(await verifyAuditChain(database.url)).toMatchObject({ ok: true, rows: 2 });
  });

  it("stays one chain under concurrent inserts from ten connections, with rollbacks among them", async () => {
    const before = Number((await owner.query("SELECT count(*) AS n FROM audit_log")).rows[0].n);
    const committed = await Promise.all(
      Array.from({ length: 10 }, async (_, c) => {
        const client = await owner.connect();
        let kept = 0;
        try {
          for (let t = 0; t < 15; t++) {
            await client.query("BEGIN");
            await insertFrom(client, `chain.concurrent.${c}`);
            await client.query("SELECT pg_sleep(0.001)");
            await insertFrom(client, `chain.concurrent.${c}`);
            if (t % 5 === 4) await client.query("ROLLBACK");
            else {
              await client.query("COMMIT");
              kept += 2;
            }
          }
        } finally {
          client.release();
        }
        return kept;
      }),
    );
    const expected = before + committed.reduce((a, b) => a + b, 0);
    const result = await verifyAuditChain(database.url, { batchSize: 7 });
    expect(result).toMatchObject({ ok: true, rows: expected });
    const gaps = await owner.query("SELECT count(*)::int AS n, max(chain_seq)::int AS last FROM audit_log");
    expect(gaps.rows[0]).toEqual({ n: expected, last: expected });
  });

  it("refuses a fork: an insert that read a stale predecessor (REPEATABLE READ) fails instead of linking to it twice", async () => {
    const stale = await owner.connect();
    try {
      await stale.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await stale.query("SELECT count(*) FROM audit_log"); // the snapshot is taken here
      await insertFrom(owner as unknown as pg.Client, "chain.meanwhile");
      await expect(insertFrom(stale, "chain.stale")).rejects.toThrow(/audit_log_chain_seq_key|could not serialize/);
      await stale.query("ROLLBACK");
    } finally {
      stale.release();
    }
    expect((await verifyAuditChain(database.url)).ok).toBe(true);
  });

  describe("through PgBouncer in transaction mode", () => {
    let bouncer: PgBouncer | null = null;
    afterAll(async () => bouncer?.stop());

    it("appends from several pooled connections and still verifies", async (context) => {
      if (database.kind !== "postgres") return context.skip();
      bouncer = await startPgBouncer(database.url, { poolSize: 3 });
      const pool = quiet(new pg.Pool({ connectionString: bouncer.urlFor(database.url), max: 8 }));
      const before = Number((await owner.query("SELECT count(*) AS n FROM audit_log")).rows[0].n);
      try {
        await Promise.all(
          Array.from({ length: 8 }, async (_, c) => {
            for (let t = 0; t < 10; t++) {
              const client = await pool.connect();
              try {
                await client.query("BEGIN");
                await insertFrom(client, `chain.pooled.${c}`);
                await client.query("COMMIT");
              } finally {
                client.release();
              }
            }
          }),
        );
      } finally {
        await pool.end();
      }
      expect(await verifyAuditChain(bouncer.urlFor(database.url))).toMatchObject({ ok: true, rows: before + 80 });
    });
  });

  it("on the embedded database (PGlite), where connections share one backend, transactions with rollbacks chain too", async () => {
    const embedded = await startEmbeddedDatabase({ inMemory: true, port: 0 });
    try {
      await migrate(embedded.url);
      const pool = quiet(new pg.Pool({ connectionString: embedded.url, max: 4 }));
      try {
        await Promise.all(
          Array.from({ length: 4 }, async (_, c) => {
            for (let t = 0; t < 6; t++) {
              const client = await pool.connect();
              try {
                await client.query("BEGIN");
                await insertFrom(client, `chain.embedded.${c}`);
                await insertFrom(client, `chain.embedded.${c}`);
                await client.query(t % 3 === 0 ? "ROLLBACK" : "COMMIT");
              } finally {
                client.release();
              }
            }
          }),
        );
      } finally {
        await pool.end();
      }
      expect(await verifyAuditChain(embedded.url)).toMatchObject({ ok: true, rows: 4 * 4 * 2 });
    } finally {
      await embedded.stop();
    }
  });
});
