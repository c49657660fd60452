import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { startBackgroundRollup } from "@/lib/metrics/background-rollup";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { createPrismaClient } from "@/lib/db/prisma";
import { connectTestDb } from "../helpers/db";

// Counting a closed hour from the base tables (861 ms at 10 M rows, ~17 s at 100 M claims a day) is
// the background roller's work, never a request's: a read rolls up settled minutes, and a closed
// hour only when no minute slices cover it. Fixed hours in 2004, so no other file's traffic and no
// real clock reach them; the tenant is this run's own.
const run = randomBytes(3).toString("hex");
const tenant = `bgroll-${run}`;
const actor: Actor = {
  kind: "system",
  id: "t",
  name: `bgroll-test-${run}`,
  displayName: "t",
  role: "admin",
  tenants: [tenant],
};
const config = parseConfig("{}");
const BASE = Date.parse("2004-05-06T00:00:00Z");
const at = (hour: number, minute = 0, second = 0) =>
  new Date(BASE + hour * 3_600_000 + minute * 60_000 + second * 1_000);
const keyOf = (i: number) => createHash("sha256").update(`background-rollup|${run}|${i}`).digest("hex");
const HOUR_LOCK_ID = 7_2707_606;

describe("metrics roll-up off the request path (real PostgreSQL)", () => {
  const db = connectTestDb();
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  let next = 0;
  const claim = (createdAt: Date) =>
    client.query(
      "INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, 'charge_card', 'completed', $3, $3::timestamptz + interval '300 ms')",
      [keyOf(next++), tenant, createdAt],
    );
  const executionsIn = async (hour: number, now: Date) => {
    const report = await getMetrics(db, config, actor, { window: "48h", tool: null, tenant: null }, now);
    return {
      executions: report.series.find((p) => p.at === at(hour).toISOString())?.executions,
      hoursRolledUpNow: report.source.hoursRolledUpNow,
    };
  };
  const hourRolled = async (hour: number) =>
    (await client.query("SELECT 1 FROM metrics_rollup_hour WHERE hour = $1", [at(hour)])).rowCount === 1;
  const claimsIn = async (hour: number) =>
    Number(
      (
        await client.query(
          "SELECT count(*) AS n FROM idempotency WHERE tenant = $1 AND created_at >= $2 AND created_at < $3",
          [tenant, at(hour), at(hour + 1)],
        )
      ).rows[0].n,
    );

  /** Rounds every 20 ms until `done` (another file's roll-up holding the lock makes a round skip). */
  const rollUntil = async (now: Date, done: () => Promise<boolean>, log: (line: string) => void = () => undefined) => {
    const roller = startBackgroundRollup(
      () => db,
      20,
      log,
      () => now,
    );
    try {
      for (let i = 0; i < 500 && !(await done()); i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await roller.stop();
    }
    return roller.rounds();
  };

  beforeAll(async () => {
    await client.connect();
    for (const minute of [5, 15, 25, 35, 45, 55]) await claim(at(1, minute));
  });
  afterAll(async () => {
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [tenant]);
    await client.end();
  });

  it("a read leaves a closed hour its slices cover to the roller, and counts a late row once the roller has run", async () => {
    // Reads during hour 1 and after it roll its minutes into slices.
    await executionsIn(1, at(1, 30));
    const afterClose = at(2, 6); // hour 1 closed (settled 5 minutes), its 60 minutes sliced by this read
    const read = await executionsIn(1, afterClose);
    expect(read.executions).toBe(6);
    expect(await hourRolled(1), "the read did not count hour 1 from the base tables").toBe(false);

    // A claim stamped 01:20 commits only now, after its slice was made: provisional, still missing.
    await claim(at(1, 20));
    expect((await executionsIn(1, afterClose)).executions).toBe(6);
    expect(await hourRolled(1)).toBe(false);

    // The background roller (its clock at 02:06) counts the hour from the base tables: exact.
    const logged: string[] = [];
    expect(
      await rollUntil(
        afterClose,
        () => hourRolled(1),
        (line) => logged.push(line),
      ),
    ).toBeGreaterThan(0);
    expect(logged).toEqual([]);
    expect(await hourRolled(1)).toBe(true);
    expect((await executionsIn(1, afterClose)).executions).toBe(await claimsIn(1));
    expect(await claimsIn(1)).toBe(7);

    // Rolled again (an operator deleted the hour to have a backfill counted): the read sees the new
    // roll-up, not the rows it read before (they are kept in memory under the old listing's version).
    await claim(at(1, 50));
    await client.query("DELETE FROM metrics_rollup_hour WHERE hour = $1", [at(1)]);
    await client.query("DELETE FROM metrics_hourly WHERE hour = $1", [at(1)]);
    await rollUntil(afterClose, () => hourRolled(1));
    expect((await executionsIn(1, afterClose)).executions).toBe(8);
  });

  it("a read still rolls up a closed hour no slices cover (nothing read or rolled while it was open)", async () => {
    for (const minute of [10, 50]) await claim(at(3, minute));
    const now = at(5, 6); // hour 3 closed long ago with no slices; hour 4 is the newest closed one
    const read = await executionsIn(3, now);
    expect(read.executions).toBe(2);
    expect(await hourRolled(3), "no slices: the read counted the hour itself").toBe(true);
    expect(await hourRolled(4), "hour 4 is covered by the slices this read made").toBe(false);
    expect(read.hoursRolledUpNow).toBeGreaterThanOrEqual(1);
  });

  it("skips a round while another roll-up holds the lock, and does the work on a later one", async () => {
    const holder = new pg.Client({ connectionString: inject("databaseUrl") });
    await holder.connect();
    const now = at(5, 6);
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1::int8)", [HOUR_LOCK_ID]);
      const busy = startBackgroundRollup(
        () => db,
        60_000,
        () => undefined,
        () => now,
      );
      await busy.stop();
      expect(busy.rounds()).toBe(1);
      expect(await hourRolled(4), "skipped, not queued behind the holder").toBe(false);
    } finally {
      await holder.query("COMMIT");
      await holder.end();
    }
    await rollUntil(now, () => hourRolled(4));
    expect(await hourRolled(4)).toBe(true);
  });

  it("logs a failing round once, then that it works again", async () => {
    const logged: string[] = [];
    let broken = true;
    const roller = startBackgroundRollup(
      () => {
        if (broken) throw new Error("connection refused");
        return db;
      },
      20,
      (line) => logged.push(line),
      () => at(5, 6),
    );
    const until = async (rounds: number) => {
      for (let i = 0; i < 500 && roller.rounds() < rounds; i++) await new Promise((r) => setTimeout(r, 10));
    };
    await until(3);
    broken = false;
    await until(roller.rounds() + 2);
    await roller.stop();
    expect(logged).toEqual([
      "metrics roll-up failed (retrying every 0.02 s): connection refused",
      "metrics roll-up: working again",
    ]);
  });

  it("names the reason when the database refuses connections (Prisma's message starts with a newline)", async () => {
    const logged: string[] = [];
    const refused = createPrismaClient("postgresql://postgres@127.0.0.1:1/idem");
    const roller = startBackgroundRollup(
      () => refused,
      60_000,
      (line) => logged.push(line),
    );
    for (let i = 0; i < 500 && roller.rounds() < 1; i++) await new Promise((r) => setTimeout(r, 10));
    await roller.stop();
    await refused.$disconnect();
    expect(logged).toEqual([
      expect.stringMatching(
        /^metrics roll-up failed \(retrying every 60 s\): Cannot reach the database: connection refused\./,
      ),
    ]);
  });
});
