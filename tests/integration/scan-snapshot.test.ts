import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { duplicateFigures } from "@/lib/duplicates/duplicate-figures";
import { repeatDelayFigures } from "@/lib/repeats/repeat-figures";
import { atOneScanSnapshot, type ScanReader } from "@/lib/scan/scan-snapshot";
import { tenantScopeOf } from "@/lib/tenancy/tenant-scope";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

const HOUR = 3_600_000;

// The scan writes its counts and its watermark in one transaction; a page shows both, "counted through
// the watermark". A scan round committing between the figures' statements and the watermark's read made
// the watermark run ahead of the figures (a CI truth-test failure: duplicates 0 against 1 through it).
describe("the duplicate scan's figures and its watermark, read in one snapshot", () => {
  let database: TestDatabase;
  let db: Db;
  let pool: pg.Pool;
  // A whole hour three hours back; the watermark before and after one more scan round.
  const hour = new Date(Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR);
  const before = new Date(hour.getTime() + 30 * 60_000);
  const after = new Date(hour.getTime() + 35 * 60_000);
  const range = { since: new Date(hour.getTime() - HOUR), until: new Date(), tool: "charge_card" };

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url, 2);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    await pool.query(
      `INSERT INTO duplicate_scan_state (id, scanned_through) VALUES (1, $1);
       INSERT INTO duplicate_scan_hourly (hour, tenant, tool, hashed, duplicates) VALUES ($2, 'acme', 'charge_card', 10, 2);
       INSERT INTO repeat_delay_hourly (hour, tenant, tool, client, band, repeats, delay_ms_sum, buckets)
       VALUES ($2, 'acme', 'charge_card', '', 'seconds', 3, 4500, '{0,3}')`.replace(/\$(\d)/g, (_, n) =>
        n === "1" ? `'${before.toISOString()}'` : `'${hour.toISOString()}'`,
      ),
    );
  });
  afterAll(async () => {
    await pool?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  /** A scan round on its own connection: one more duplicate and repeat, and the watermark moved on, together. */
  const scanRoundCommits = () =>
    pool.query(
      `BEGIN;
       UPDATE duplicate_scan_hourly SET hashed = hashed + 1, duplicates = duplicates + 1;
       UPDATE repeat_delay_hourly SET repeats = repeats + 1, buckets = '{0,4}';
       UPDATE duplicate_scan_state SET scanned_through = '${after.toISOString()}';
       COMMIT`,
    );

  /** The reader the figures use, with a scan round committing right after their first statement. */
  function racing(reader: ScanReader): ScanReader {
    let statements = 0;
    const queryRaw = async (...args: Parameters<ScanReader["$queryRaw"]>) => {
      const rows = await reader.$queryRaw(...args);
      if (++statements === 1) await scanRoundCommits();
      return rows;
    };
    return { $queryRaw: queryRaw as ScanReader["$queryRaw"] };
  }

  it("reads the figures and the watermark they count through together, whatever commits meanwhile", async () => {
    // The figures send statements side by side; the snapshot's one connection must take them in turn
    // (pg warns, and pg@9 will refuse, a query sent while its client is busy).
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    const scope = tenantScopeOf(null);
    process.on("warning", onWarning);
    const read = await atOneScanSnapshot(db, async (scan) => {
      const reader = racing(scan);
      return {
        duplicates: await duplicateFigures(reader, scope, range),
        repeats: await repeatDelayFigures(reader, scope, range),
      };
    });
    await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
    process.off("warning", onWarning);
    expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([]);
    expect(read.duplicates.scannedThrough).toBe(before.toISOString());
    expect(read.repeats.scannedThrough).toBe(before.toISOString());
    expect(read.duplicates.byTool).toEqual([
      { tool: "charge_card", duplicates: 2, hashedClaims: 10, argumentsMismatches: 0 },
    ]);
    expect(read.repeats.byTool.map((t) => t.repeats)).toEqual([3]);

    // The round did commit: the next read has it, with its watermark.
    const next = await atOneScanSnapshot(db, async (scan) => ({
      duplicates: await duplicateFigures(scan, scope, range),
      repeats: await repeatDelayFigures(scan, scope, range),
    }));
    expect(next.duplicates.scannedThrough).toBe(after.toISOString());
    expect(next.duplicates.byTool[0]?.duplicates).toBe(3);
    expect(next.repeats.byTool.map((t) => t.repeats)).toEqual([4]);
  });
});
