import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { lastJobRuns } from "@/lib/audit/job-runs";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import type { Actor } from "@/lib/identity/actor";
import { applyBulkPlan } from "@/lib/resolve/bulk-apply-run";
import { planBulkResolution } from "@/lib/resolve/bulk-plan";
import { reconcileKeys } from "@/lib/resolve/reconcile-keys";
import { connectTestDb } from "../helpers/db";

const run = randomBytes(3).toString("hex");
const TENANT = `bulk-run-${run}`;
// A name of this run alone: the job_run rows it finds are this test's.
const operator: Actor = {
  kind: "user",
  id: `u-bulk-run-${run}`,
  name: `operator-${run}@bulk-run.test`,
  displayName: "operator",
  role: "operator",
  tenants: [],
};

describe("a bulk apply records its run in job_run", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let processor: DemoUpstream;
  let config: IdemConfig;
  let n = 0;

  beforeAll(async () => {
    processor = await startDemoProcessor();
    config = parseConfig(
      JSON.stringify({ tools: { charge_card: { processor: { type: "http", baseUrl: processor.url } } } }),
    );
  });
  afterAll(async () => {
    await processor.stop();
    await pool.end();
  });

  /** An in_progress claim an hour old; `taken` makes the processor hold a succeeded charge under its key. */
  async function claim(taken = false) {
    n += 1;
    const key = createHash("sha256").update(`bulk-run|${run}|${n}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, 'charge_card', 'in_progress', now() - interval '1 hour')`,
      [key, TENANT],
    );
    if (taken) {
      const response = await fetch(`${processor.url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: 700 + n, reference: key }),
      });
      expect(response.status).toBe(200);
    }
    return key;
  }
  const runsOf = async (job: string) =>
    (
      await pool.query<{
        dry_run: boolean;
        candidates: number;
        completed: number;
        released: number;
        left_unknown: number;
        deleted: number;
        kept: number;
        started_at: Date;
        finished_at: Date;
      }>(`SELECT * FROM job_run WHERE job = $1 AND actor = $2`, [job, operator.name])
    ).rows;

  it("one bulk_apply row per apply, with its completed, released and not applied rows", async () => {
    const taken = await claim(true);
    const notTaken = await claim();
    const touched = await claim();
    const plan = await planBulkResolution(db, config, operator, { keys: [taken, notTaken, touched] });
    expect(plan.rows.map((r) => r.proposed)).toEqual(["complete", "release", "release"]);
    // A writer touches one row between plan and apply: that row is a conflict, not applied.
    await pool.query(`UPDATE idempotency SET updated_at = now() WHERE key = $1`, [touched]);

    const applied = await applyBulkPlan(db, config, operator, {
      reason: "clearing the timeouts",
      rows: plan.rows.map((r) => ({
        key: r.key,
        action: r.proposed as "complete" | "release",
        expectedUpdatedAt: r.expectedUpdatedAt,
      })),
    });
    expect(applied.totals).toEqual({ ok: 2, conflict: 1, changed_outcome: 0, error: 0 });

    const runs = await runsOf("bulk_apply");
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      dry_run: false,
      candidates: 3,
      completed: 1,
      released: 1,
      left_unknown: 1,
      deleted: 0,
      kept: 0,
    });
    expect(runs[0]!.finished_at.getTime()).toBeGreaterThanOrEqual(runs[0]!.started_at.getTime());
    expect((await lastJobRuns(db)).bulk_apply).not.toBeNull();
  });

  it("the reconciler's run over keys applies through the same code but is no bulk apply", async () => {
    const key = await claim(true);
    const before = (await runsOf("bulk_apply")).length;
    const result = await reconcileKeys(db, config, operator, [key], false);
    expect(result.totals).toMatchObject({ completed: 1, left: 0, conflict: 0 });
    expect(await runsOf("bulk_apply")).toHaveLength(before);
  });
});
