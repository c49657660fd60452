import { readFileSync } from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { REFERENCE_CLAIM, REFERENCE_COMPLETE, REFERENCE_LOOK_UP } from "idem-guard";

// The reference writer's statements, verbatim (see the module and docs/architecture.md#the-reference-writer), against the migrated table.
const CLAIM = REFERENCE_CLAIM;
const LOOK_UP = REFERENCE_LOOK_UP;
const COMPLETE = REFERENCE_COMPLETE;

describe("the reference writer's statements", () => {
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

describe("the verbatim statements themselves", () => {
  it("are the reference writer's, character for character", () => {
    // The Python handler kept in the repository (tests/fixtures/reference-writer.py).
    const text = readFileSync(path.resolve(import.meta.dirname, "../fixtures/reference-writer.py"), "utf8");
    expect(text).toContain(`"""${REFERENCE_CLAIM}"""`);
    expect(text).toContain(`"${REFERENCE_LOOK_UP}"`);
    expect(text).toContain(`"${REFERENCE_COMPLETE}"`);
  });
});
