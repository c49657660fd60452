import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { recountMetrics } from "@/lib/metrics/recount";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { cliChild, crashAtEveryStep } from "./crash-run";
import { useCrashDatabase } from "./crash-setup";
import type { ClaimsOf, Watched } from "./invariant";

// `idem rollup --recount-from <hour>` after a backfill into that rolled hour, killed after its commit.
const HOUR_MS = 3_600_000;
const admin: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };
const HOURLY: Watched = {
  table: "metrics_hourly",
  id: `concat_ws('|', to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'), tenant, tool)`,
  fingerprint: "concat_ws('|', executions, completed, replays_served, in_flight_rejected, outcome_unknown)",
};

/** A recount names the hours from `evidence.from` on: every hourly row there, before or after it. */
const recountClaims: ClaimsOf = async (row, { db, before }) => {
  if (row.action !== "metrics.recount") return [];
  const from = (row.evidence as { from: string }).from.slice(0, 13);
  const now = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT ${HOURLY.id} AS id FROM ${HOURLY.table}`);
  const ids = new Set([...before.rows.keys(), ...now.map((r) => `${HOURLY.table}:${r.id}`)]);
  return [
    { ids: [...ids].filter((id) => id.startsWith(`${HOURLY.table}:`) && id.slice(HOURLY.table.length + 1) >= from) },
  ];
};

describe("crash: idem rollup --recount-from killed at its commit", () => {
  const database = useCrashDatabase();
  let round = 0;
  let auditBefore = 0n;
  const hour = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 3 * HOUR_MS);

  async function insertClaim(label: string): Promise<void> {
    const key = createHash("sha256").update(`crash-recount|${label}`).digest("hex");
    await database.db.$executeRaw`
      INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at)
      VALUES (${key}, 'acme', 'charge_card', 'completed', ${new Date(hour.getTime() + 60_000)}, ${new Date(hour.getTime() + 61_000)})`;
  }
  const executions = async () =>
    (
      await database.db.$queryRaw<
        { n: bigint }[]
      >`SELECT coalesce(sum(executions), 0)::bigint AS n FROM metrics_hourly WHERE hour = ${hour}`
    )[0]!.n;

  beforeAll(async () => {
    await insertClaim("first");
    await rollUpSettled(database.db, new Date()); // the hour is rolled up, and frozen
  }, 60_000);

  it("changes the figures with its one audit row, or neither; a recount afterwards finishes it", async () => {
    const { db } = database;
    const report = await crashAtEveryStep({
      db,
      child: cliChild(["rollup", "--recount-from", hour.toISOString()], { DATABASE_URL: database.url }),
      kinds: ["after-commit"],
      watched: [HOURLY],
      claimsOf: recountClaims,
      async prepare() {
        round += 1;
        await insertClaim(`backfill-${round}`); // a row the frozen hour does not count yet
        expect(await executions()).toBe(BigInt(round));
        auditBefore = (await db.auditLog.aggregate({ _max: { id: true } }))._max.id ?? 0n;
      },
      async nextRun() {
        // The operator's check: did the recount commit (its audit row says so)? If not, run it again.
        const done = await db.auditLog.count({ where: { action: "metrics.recount", id: { gt: auditBefore } } });
        if (done === 0) expect((await recountMetrics(db, admin, hour, new Date())).ok).toBe(true);
      },
      async expectDone() {
        expect(await executions()).toBe(BigInt(round + 1));
      },
    });
    expect(report.points).toEqual(["after-commit:1"]);
  }, 120_000);
});
