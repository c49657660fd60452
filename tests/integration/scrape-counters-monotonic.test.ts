import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient } from "@/lib/db/prisma";
import { rollUpClosedMinutes } from "@/lib/metrics/minute-rollup";
import { toExposition } from "@/lib/metrics/prometheus-exposition";
import { rollUpClosedHours } from "@/lib/metrics/rollup";
import { readScrapeFigures, type CounterRow } from "@/lib/metrics/scrape-figures";
import { resolveRecord } from "@/lib/resolve/resolve-record";
import { FORCE_RELEASE_CONFIRMATION } from "@/lib/resolve/resolve-rules";
import { connectTestDb } from "../helpers/db";

// Prometheus computes rate() from a counter's increases and reads any decrease as a reset, so the
// scrape's *_total counters must never go down: not when minute slices give way to their hour's
// rollup, not when a claim counted in a slice is released (its row deleted) before the hour is
// rolled up, not when a row committed late is counted only by the hour, not when the base rows are
// trimmed, and not when the console restarts (the counters live in the rollups, not in the process).
// The hour is a fixed one in 2003, so no other file's traffic and no real clock reach it; the
// tenants are this run's own.
const run = randomBytes(3).toString("hex");
const tenant = `mono-${run}`;
const actor: Actor = {
  kind: "system",
  id: "t",
  name: `mono-test-${run}`,
  displayName: "t",
  role: "admin",
  tenants: [tenant],
};
const config = parseConfig("{}");
const HOUR = "2003-02-03T04:00:00Z";
const at = (minute: number, second = 0) => new Date(Date.parse(HOUR) + minute * 60_000 + second * 1_000);
const keyOf = (i: number) => createHash("sha256").update(`scrape-monotonic|${run}|${i}`).digest("hex");
// "now" as each step sees it: slices of 04:00–04:09 settled; then the hour closed and settled.
const SLICES_SETTLED = at(10, 30);
const HOUR_SETTLED = at(70, 30);

type Counters = Record<string, Omit<CounterRow, "tool">>;

describe("the scrape's counters never go down (real PostgreSQL)", () => {
  const db = connectTestDb();
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  const read = async (now: Date, on = db): Promise<Counters> => {
    const figures = await readScrapeFigures(on, config, actor, now);
    return Object.fromEntries(figures.counters.map(({ tool, ...rest }) => [tool, rest]));
  };
  const claim = (i: number, tool: string | null, minute: number) =>
    client.query(
      "INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, 'in_progress', $4)",
      [keyOf(i), tenant, tool, at(minute)],
    );
  const event = (i: number, tool: string | null, kind: string, minute: number) =>
    client.query("INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, $3, $4, $5)", [
      keyOf(i),
      tenant,
      tool,
      kind,
      at(minute, 20),
    ]);
  const expectNoDecrease = (before: Counters, after: Counters) => {
    for (const [tool, figures] of Object.entries(before))
      for (const [name, value] of Object.entries(figures))
        expect(after[tool]?.[name as keyof typeof figures], `${tool || "(unrecorded)"} ${name}`).toBeGreaterThanOrEqual(
          value,
        );
  };

  beforeAll(async () => {
    await client.connect();
    // Four claims in the hour's first minutes (one with no tool), with one event of each kind.
    await claim(0, "charge_card", 1);
    await claim(1, "charge_card", 2);
    await claim(2, "charge_card", 3);
    await claim(3, null, 3);
    await event(1, "charge_card", "replay_served", 2);
    await event(2, "charge_card", "in_flight_rejected", 3);
    await event(0, "charge_card", "outcome_unknown", 4);
  });
  afterAll(async () => {
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [tenant]);
    await client.query("DELETE FROM idempotency_event WHERE tenant = $1", [tenant]);
    await client.end();
  });

  it("holds across slices, a release, a late commit, the hour's rollup, a trim and a restart", async () => {
    // 1. The minutes settle into slices: the counters are the slices.
    await rollUpClosedMinutes(db, SLICES_SETTLED);
    const slices = await read(SLICES_SETTLED);
    expect(slices).toEqual({
      charge_card: { executions: 3, replaysServed: 1, inFlightRejected: 1, outcomeUnknown: 1 },
      "": { executions: 1, replaysServed: 0, inFlightRejected: 0, outcomeUnknown: 0 },
    });

    // 2. An operator releases claim 0 (the row is deleted) and a claim of 04:02 commits only now,
    //    after its slice was made: neither may take anything away.
    const released = await resolveRecord(db, config, { ...actor, kind: "user" }, keyOf(0), {
      action: "release",
      reason: "the processor has no charge for this reference",
      expectedUpdatedAt: null,
      force: true,
      confirm: FORCE_RELEASE_CONFIRMATION,
    });
    expect(released.ok, JSON.stringify(released)).toBe(true);
    await claim(4, "charge_card", 2);
    const afterRelease = await read(SLICES_SETTLED);
    expectNoDecrease(slices, afterRelease);

    // 3. The hour closes and is rolled up from the base tables (the slices give way to it): the
    //    counters are exact — the released claim counted from its audit snapshot, the late one counted.
    await rollUpClosedHours(db, HOUR_SETTLED);
    await rollUpClosedMinutes(db, HOUR_SETTLED);
    const hour = await read(HOUR_SETTLED);
    expectNoDecrease(afterRelease, hour);
    expect(hour).toEqual({
      charge_card: { executions: 4, replaysServed: 1, inFlightRejected: 1, outcomeUnknown: 1 },
      "": { executions: 1, replaysServed: 0, inFlightRejected: 0, outcomeUnknown: 0 },
    });
    // The hour's slices are still there (they are pruned a closed hour later): exact figures above
    // mean the scrape counted the hour once, not slices and hour both.
    const { rows: slicesLeft } = await client.query(
      "SELECT count(*)::int AS n FROM metrics_minute WHERE tenant = $1 AND minute >= $2 AND minute < $3",
      [tenant, HOUR, at(60)],
    );
    expect(slicesLeft[0].n).toBeGreaterThan(0);

    // 4. Retention deletes the hour's rows and events (what a trim does to them, on this file's tenant only).
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [tenant]);
    await client.query("DELETE FROM idempotency_event WHERE tenant = $1", [tenant]);
    expect(await read(HOUR_SETTLED)).toEqual(hour);

    // 5. A restart: a new client and a fresh exposition read the same totals.
    const restarted = createPrismaClient(inject("databaseUrl"), 1);
    try {
      expect(await read(HOUR_SETTLED, restarted)).toEqual(hour);
      const text = await toExposition(await readScrapeFigures(restarted, config, actor, HOUR_SETTLED), {
        version: "test",
        consoleUrl: "http://console.test",
      });
      expect(text).toContain('idem_executions_total{tool="charge_card"} 4');
      expect(text).toContain('idem_executions_total{tool=""} 1');
      expect(text).toMatch(/^# TYPE idem_executions_total counter$/m);
    } finally {
      await restarted.$disconnect();
    }
  });
});
