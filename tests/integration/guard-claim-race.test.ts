import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { claimOrRead } from "idem-guard";
import { backendPid, waitForLockWaiters } from "../helpers/lock-waiters";

const ARGUMENTS_SHA256 = createHash("sha256").update("{}").digest("hex");

// The claim and the look-up of a prior row share one statement. Its look-up reads the
// statement's snapshot, so a row committed while the INSERT waited on it is invisible there.
// This forces that interleaving and checks the second look-up catches it.
describe("claimOrRead under a concurrent writer", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  afterAll(() => pool.end());
  const key = () => createHash("sha256").update(`race|${Math.random()}`).digest("hex");

  it("sees a row committed while its INSERT waited, through the second look-up, with its arguments_sha256", async () => {
    const k = key();
    const theirs = createHash("sha256").update('{"other":1}').digest("hex");
    const writer = await pool.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(
        `INSERT INTO idempotency (key, tenant, status, arguments_sha256) VALUES ($1, 'acme', 'in_progress', $2)`,
        [k, theirs],
      );
      let races = 0;
      const pending = claimOrRead(
        pool,
        {
          key: k,
          tenant: "acme",
          subject: null,
          tool: "charge_card",
          argumentsSha256: ARGUMENTS_SHA256,
          at: new Date(),
        },
        () => (races += 1),
      );
      // The claim's INSERT has reached the conflicting row and blocks on the open transaction.
      await waitForLockWaiters(pool, await backendPid(writer));
      await writer.query("COMMIT");
      expect(await pending).toEqual({ claimed: false, status: "in_progress", response: null, argumentsSha256: theirs });
      expect(races).toBe(1);
    } finally {
      writer.release();
    }
  });

  it("claims when the concurrent writer rolls back", async () => {
    const k = key();
    const writer = await pool.connect();
    try {
      await writer.query("BEGIN");
      await writer.query(`INSERT INTO idempotency (key, tenant, status) VALUES ($1, 'acme', 'in_progress')`, [k]);
      const pending = claimOrRead(pool, {
        key: k,
        tenant: "acme",
        subject: null,
        tool: "charge_card",
        argumentsSha256: ARGUMENTS_SHA256,
        at: new Date(),
      });
      await waitForLockWaiters(pool, await backendPid(writer));
      await writer.query("ROLLBACK");
      expect(await pending).toEqual({ claimed: true });
    } finally {
      writer.release();
    }
  });

  it("40 concurrent claims of one key: exactly one claims, every other reads the row", async () => {
    const k = key();
    const racePool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 10 });
    try {
      const results = await Promise.all(
        Array.from({ length: 40 }, () =>
          claimOrRead(racePool, {
            key: k,
            tenant: "acme",
            subject: "s",
            tool: "charge_card",
            argumentsSha256: ARGUMENTS_SHA256,
            at: new Date(),
          }),
        ),
      );
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      expect(results.filter((r) => !r.claimed && r.status === "in_progress")).toHaveLength(39);
      // Every reader gets the claimer's hash, whichever look-up found the row.
      expect(results.filter((r) => !r.claimed && r.argumentsSha256 === ARGUMENTS_SHA256)).toHaveLength(39);
    } finally {
      await racePool.end();
    }
  });

  it("returns NULL for a row whose writer recorded no arguments_sha256", async () => {
    const k = key();
    await pool.query(`INSERT INTO idempotency (key, tenant, status) VALUES ($1, 'acme', 'completed')`, [k]);
    const input = { key: k, tenant: "acme", subject: null, tool: "charge_card", argumentsSha256: ARGUMENTS_SHA256 };
    expect(await claimOrRead(pool, { ...input, at: new Date() })).toEqual({
      claimed: false,
      status: "completed",
      response: null,
      argumentsSha256: null,
    });
  });
});
