import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { recountAfterBackfill, recountMetrics } from "@/lib/metrics/recount";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// A rolled-up hour is frozen, so rows written into it afterwards (a backfill) are missing until
// `idem rollup --recount-from` counts it again. A recount discards every figure from its hour on:
// this file has a database of its own, so no other file's rolled hours are touched.
const HOUR = 3_600_000;
const admin: Actor = { kind: "system", id: "t", name: "recount-test", displayName: "t", role: "admin", tenants: [] };
const operator: Actor = { ...admin, name: "recount-operator", role: "operator" };
const config = parseConfig("{}");

describe("counting the metrics again after a backfill (real PostgreSQL)", () => {
  let database: TestDatabase;
  let db: Db;
  let client: pg.Client;
  const now = new Date();
  // Two hours well inside the rolled range and the 48 h window: `early` stays frozen, `late` is recounted.
  const late = new Date(Math.floor(now.getTime() / HOUR) * HOUR - 5 * HOUR);
  const early = new Date(late.getTime() - HOUR);
  let next = 0;

  const backfill = async (hour: Date, rows: number) => {
    for (let i = 0; i < rows; i++)
      await client.query(
        "INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, 'acme', 'charge_card', 'completed', $2, $2::timestamptz + interval '40 ms')",
        [createHash("sha256").update(`recount-${next++}`).digest("hex"), new Date(hour.getTime() + (i + 1) * 60_000)],
      );
  };
  const executionsIn = async (hour: Date) => {
    const report = await getMetrics(db, config, admin, { window: "48h", tool: null, tenant: null }, now);
    return report.series.find((p) => p.at === hour.toISOString())?.executions;
  };
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await client.query<{ n: string }>(sql, params)).rows[0]!.n);
  const rolledHoursFrom = (hour: Date) =>
    count("SELECT count(*) AS n FROM metrics_rollup_hour WHERE hour >= $1", [hour]);
  const recountRows = () => count("SELECT count(*) AS n FROM audit_log WHERE action = 'metrics.recount'");

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url, 2);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await backfill(late, 2);
    await rollUpSettled(db, now); // every closed hour rolled: `late` with its first 2 rows
    await backfill(early, 3);
    await backfill(late, 7);
  });
  afterAll(async () => {
    await client?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  it("a backfilled hour reads as it was rolled up: the rows are missing", async () => {
    expect(await count("SELECT count(*) AS n FROM idempotency")).toBe(12);
    expect(await executionsIn(late)).toBe(2);
    expect(await executionsIn(early)).toBe(0);
  });

  it("refuses a caller without metrics:recount, and changes nothing", async () => {
    const before = await rolledHoursFrom(late);
    expect(await recountMetrics(db, operator, late, now)).toEqual({ ok: false, reason: "forbidden" });
    expect(await rolledHoursFrom(late)).toBe(before);
    expect(await recountRows()).toBe(0);
  });

  it("refuses an hour in the future", async () => {
    const outcome = await recountMetrics(db, admin, new Date(now.getTime() + 2 * HOUR), now);
    expect(outcome).toMatchObject({ ok: false, reason: "in_future" });
    expect(await recountRows()).toBe(0);
  });

  it("counts again from the hour holding `from`, with an audit row; the hours before stay as they were", async () => {
    const rolled = await rolledHoursFrom(late);
    expect(rolled).toBeGreaterThanOrEqual(4); // late … the newest closed hour
    const outcome = await recountMetrics(db, admin, new Date(late.getTime() + 30 * 60_000), now);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome));
    expect(outcome.from).toBe(late.toISOString());
    expect(outcome.discarded.hours).toBe(rolled);
    expect(outcome.counted).toMatchObject({ hours: rolled, firstHour: late.toISOString() });
    expect(await executionsIn(late)).toBe(9);
    expect(await executionsIn(early)).toBe(0);
    const audit = await client.query<{ actor: string; evidence: { from: string; hours: number } }>(
      "SELECT actor, evidence FROM audit_log WHERE action = 'metrics.recount'",
    );
    expect(audit.rows).toEqual([
      { actor: "system:recount-test", evidence: expect.objectContaining({ from: late.toISOString(), hours: rolled }) },
    ]);
  });

  it("refuses hours before the newest trim's cutoff (their rows are gone), naming the first hour it can recount", async () => {
    const cutoff = new Date(early.getTime() + 20 * 60_000);
    await client.query(
      "INSERT INTO audit_log (actor, actor_role, action, reason, evidence) VALUES ('cli (test)', 'admin', 'retention.trim', 'test', $1)",
      [JSON.stringify({ cutoff: cutoff.toISOString() })],
    );
    const before = await rolledHoursFrom(early);
    const outcome = await recountMetrics(db, admin, early, now);
    expect(outcome).toEqual({
      ok: false,
      reason: "trimmed",
      from: early.toISOString(),
      trimmedBefore: cutoff.toISOString(),
      earliestFrom: late.toISOString(),
    });
    expect(await rolledHoursFrom(early)).toBe(before);
    expect(await recountRows()).toBe(1);
    expect(await executionsIn(early)).toBe(0);
    expect((await recountMetrics(db, admin, late, now)).ok).toBe(true);
  });

  it("after a backfill (seed-demo, the demo's first start): recounts only when an hour from there on is rolled up", async () => {
    const nextHour = new Date(Math.ceil(now.getTime() / HOUR) * HOUR);
    expect(await recountAfterBackfill(db, admin, nextHour, now)).toBeNull();
    expect(await recountRows()).toBe(2);
    const outcome = await recountAfterBackfill(db, admin, late, now);
    expect(outcome).toMatchObject({ ok: true, from: late.toISOString() });
    expect(await recountRows()).toBe(3);
  });
});
