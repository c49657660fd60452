import "server-only";
import pg from "pg";
import { ROW_VERSION_SQL } from "@/lib/records/visible-records";

/** A completed record the soak may allow to repeat, with the version it compares and sets against. */
export type CompletedTarget = { key: string; version: string | null };

/** What the load reads and acts on; each stuck claim and completed record is handed out once. */
export type SoakTargets = {
  /** A loaded record's key to read (detail, lookup, its page), cycling through a sample. */
  sample(i: number): string;
  /** A stuck claim's key to ask the processor about (read-only, so it may repeat). */
  stuckSample(i: number): string;
  takeStuck(): string | null;
  takeCompleted(): CompletedTarget | null;
  left(): { stuck: number; completed: number };
  /** Every claim in progress when the load began: the ones any resolve, reconcile or sweep may have changed. */
  inProgressAtStart: string[];
};

export const STUCK_TENANT = "acme";
/** The reconcile sweeps' tenant: their claims are apart from those handed to resolves, so the two seldom meet. */
export const SWEEP_TENANT = "umbrella";

/**
 * Adds `stuck` claims of charge_card, two hours old and never touched (as a writer that died
 * between claim and completion leaves them), for the resolves and keyed reconciles to act on, and
 * `swept` more in SWEEP_TENANT for the reconcile sweeps, and
 * picks the completed records for allow-repeat and the sample the reads draw from.
 */
export async function prepareSoakTargets(
  url: string,
  counts: { stuck: number; swept: number; completed: number },
): Promise<SoakTargets> {
  const client = new pg.Client({ connectionString: url, application_name: "idem-soak" });
  await client.connect();
  try {
    const insertStuck = (tenant: string, n: number, prefix: string) =>
      client.query<{ key: string }>(
        `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at)
         SELECT encode(sha256(convert_to($3 || i, 'UTF8')), 'hex'), $2, 'u' || (i % 150), 'charge_card',
                'in_progress', now() - interval '2 hours' - i * interval '10 milliseconds'
         FROM generate_series(1, $1::int) AS i
         RETURNING key`,
        [n, tenant, prefix],
      );
    const { rows: stuckRows } = await insertStuck(STUCK_TENANT, counts.stuck, "soak-stuck-");
    await insertStuck(SWEEP_TENANT, counts.swept, "soak-swept-");
    const { rows: inProgress } = await client.query<{ key: string }>(
      "SELECT key FROM idempotency WHERE status = 'in_progress'",
    );
    const { rows: completedRows } = await client.query<CompletedTarget>(
      `SELECT key, ${ROW_VERSION_SQL} AS version FROM idempotency
       WHERE status = 'completed' AND tool = 'refund_charge' ORDER BY key LIMIT $1`,
      [counts.completed],
    );
    const { rows: sampleRows } = await client.query<{ key: string }>(
      `SELECT key FROM idempotency WHERE status = 'completed' AND tool <> 'refund_charge' ORDER BY key LIMIT 200`,
    );
    const stuck = stuckRows.map((r) => r.key);
    const probe = stuck.slice(-20);
    const toAct = stuck.slice(0, -20);
    const completed = [...completedRows];
    const sample = sampleRows.map((r) => r.key);
    return {
      sample: (i) => sample[i % sample.length]!,
      stuckSample: (i) => probe[i % probe.length]!,
      takeStuck: () => toAct.shift() ?? null,
      takeCompleted: () => completed.shift() ?? null,
      left: () => ({ stuck: toAct.length, completed: completed.length }),
      inProgressAtStart: inProgress.map((r) => r.key),
    };
  } finally {
    await client.end();
  }
}
