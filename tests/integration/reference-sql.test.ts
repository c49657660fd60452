import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";

// The reference text's own statements, verbatim (whitespace included), against the migrated table.
const CLAIM = `INSERT INTO idempotency (key, tenant, status, created_at)
           VALUES ($1, $2, 'in_progress', now())
           ON CONFLICT (key) DO NOTHING
           RETURNING key`;
const LOOK_UP = "SELECT status, response FROM idempotency WHERE key=$1";
const COMPLETE = "UPDATE idempotency SET status='completed', response=$2 WHERE key=$1";

describe("the reference text's writer statements", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 8 });
  afterAll(() => pool.end());

  const key = createHash("sha256").update(`reference-sql|${Date.now()}`).digest("hex");
  const receipt = { charge_id: "ch_1", amount_cents: 24000, status: "succeeded" };

  beforeAll(async () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("claims a new key: the INSERT returns the key", async () => {
    const result = await pool.query(CLAIM, [key, "acme"]);
    expect(result.rows).toEqual([{ key }]);
  });

  it("a repeat claim returns no row, and the look-up sees in_progress with no response", async () => {
    const result = await pool.query(CLAIM, [key, "acme"]);
    expect(result.rowCount).toBe(0);
    expect((await pool.query(LOOK_UP, [key])).rows).toEqual([{ status: "in_progress", response: null }]);
  });

  it("completes the row with the receipt, which the look-up then replays", async () => {
    const result = await pool.query(COMPLETE, [key, JSON.stringify(receipt)]);
    expect(result.rowCount).toBe(1);
    expect((await pool.query(LOOK_UP, [key])).rows).toEqual([{ status: "completed", response: receipt }]);
  });

  it("eight concurrent claims of one fresh key: exactly one wins", async () => {
    const fresh = createHash("sha256").update(`${key}|race`).digest("hex");
    const results = await Promise.all(Array.from({ length: 8 }, () => pool.query(CLAIM, [fresh, "acme"])));
    expect(results.filter((r) => r.rowCount === 1)).toHaveLength(1);
  });

  it("the 12-hex ref prefix finds the row through the primary key", async () => {
    const ref = key.slice(0, 12);
    const { rows } = await pool.query(`SELECT key FROM idempotency WHERE key >= $1 AND key < $1 || 'g'`, [ref]);
    expect(rows).toEqual([{ key }]);
  });
});
