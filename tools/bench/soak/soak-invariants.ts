import "server-only";
import pg from "pg";
import { MISSED_BEATS } from "@/lib/audit/job-runs";
import type { SentMutation } from "./soak-load";
import { SOAK_APPLICATION_NAME } from "./soak-sample";

export type InvariantResult = { name: string; held: boolean; detail: string };

export type JobRunCounts = { finished: number; didNotFinish: number; running: number };

/**
 * What must be true after the soak, read from the database itself:
 * - each mutation that answered 2xx has exactly one audit row per key it changed, and the audit
 *   ids it answered exist and name its keys;
 * - nothing half-done: every claim in progress at the start, and every record sent to
 *   allow-repeat (whatever the answer, a 503 included), was changed with exactly one audit row, or
 *   is exactly as it was with none;
 * - every job run finished or reads "did not finish" (its heartbeat stopped), none still running.
 */
export async function checkInvariants(
  url: string,
  mutations: SentMutation[],
  inProgressAtStart: string[],
  jobs: JobRunCounts,
): Promise<InvariantResult[]> {
  const client = new pg.Client({ connectionString: url, application_name: SOAK_APPLICATION_NAME });
  await client.connect();
  try {
    const allowedToRepeat = mutations.filter((m) => m.kind === "allow-repeat").flatMap((m) => m.keys);
    const keys = [...inProgressAtStart, ...allowedToRepeat];
    const { rows } = await client.query<KeyState>(
      `SELECT k.key, i.status, i.updated_at IS NOT NULL AS touched,
              (SELECT count(*)::int FROM audit_log a WHERE a.key = k.key) AS audits
       FROM unnest($1::text[]) AS k(key) LEFT JOIN idempotency i ON i.key = k.key`,
      [keys],
    );
    const state = new Map(rows.map((r) => [r.key, r]));
    const claims = new Set(inProgressAtStart);
    const auditIds = mutations.flatMap((m) => m.auditIds);
    const { rows: audited } = await client.query<{ id: string; key: string | null }>(
      "SELECT id::text AS id, key FROM audit_log WHERE id = ANY($1::bigint[])",
      [auditIds],
    );
    const auditKey = new Map(audited.map((r) => [r.id, r.key]));

    const ok2xx = mutations.filter((m) => m.status !== null && m.status >= 200 && m.status < 300);
    // resolve and allow-repeat change their one key on a 200; a reconcile may leave a claim it cannot settle.
    const withoutOne = ok2xx.filter(
      (m) => m.kind !== "reconcile" && m.keys.some((key) => state.get(key)?.audits !== 1),
    );
    // Each auditId answered exists and is about a key the mutation named (a sweep: a claim in progress at the start).
    const badIds = ok2xx.filter((m) =>
      m.auditIds.some((id) => {
        const key = auditKey.get(id);
        return !key || (m.keys.length > 0 ? !m.keys.includes(key) : !claims.has(key));
      }),
    );
    const halfDone = keys.filter((key) => {
      const row = state.get(key);
      if (!row) return true;
      // A claim is completed or released (gone), or as it was; a record allowed to repeat is gone, or as it was.
      const changed = claims.has(key) ? row.status !== "in_progress" || row.touched : row.status === null;
      return changed ? row.audits !== 1 : row.audits !== 0;
    });
    const changedCount = keys.filter((key) => (state.get(key)?.audits ?? 0) > 0).length;

    return [
      {
        name: "every 2xx mutation has exactly one audit row",
        held: withoutOne.length === 0 && badIds.length === 0,
        detail:
          withoutOne.length + badIds.length === 0
            ? `${ok2xx.length} mutations answered 2xx (${count(ok2xx, "resolve")} resolve, ${count(ok2xx, "allow-repeat")} allow-repeat, ${count(ok2xx, "reconcile")} reconcile), naming ${auditIds.length} audit rows; each exists and is about a key the mutation acted on, and each key a resolve or allow-repeat changed has exactly one`
            : `${withoutOne.length} without exactly one audit row (first: ${withoutOne[0]?.kind} ${withoutOne[0]?.keys[0]}), ${badIds.length} whose auditId is missing or names another key`,
      },
      {
        name: "nothing half-done",
        held: halfDone.length === 0,
        detail:
          halfDone.length === 0
            ? `${inProgressAtStart.length} claims in progress at the start and ${allowedToRepeat.length} records sent to allow-repeat (every answer, 503s included): ${changedCount} changed, each with exactly one audit row; ${keys.length - changedCount} as they were, with none`
            : `${halfDone.length} keys changed without their audit row or audited without the change (first: ${halfDone[0]})`,
      },
      {
        name: "job runs finished or say 'did not finish'",
        held: jobs.running === 0,
        detail: `${jobs.finished} finished, ${jobs.didNotFinish} did not finish (heartbeat stopped), ${jobs.running} still running`,
      },
    ];
  } finally {
    await client.end();
  }
}

type KeyState = { key: string; status: string | null; touched: boolean; audits: number };

/**
 * Job runs by state, waiting up to `waitMs` for runs still beating to finish or to stop beating
 * (a run the database restart cut off cannot write its end: its heartbeat stops instead).
 */
export async function settleJobRuns(url: string, waitMs: number): Promise<JobRunCounts> {
  const client = new pg.Client({ connectionString: url, application_name: SOAK_APPLICATION_NAME });
  await client.connect();
  try {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const { rows } = await client.query<JobRunCounts>(
        `SELECT count(*) FILTER (WHERE finished_at IS NOT NULL)::int AS finished,
                count(*) FILTER (WHERE finished_at IS NULL AND heartbeat_at < now() - make_interval(secs => heartbeat_ms * $1 / 1000.0))::int AS "didNotFinish",
                count(*) FILTER (WHERE finished_at IS NULL AND heartbeat_at >= now() - make_interval(secs => heartbeat_ms * $1 / 1000.0))::int AS running
         FROM job_run`,
        [MISSED_BEATS],
      );
      const counts = rows[0]!;
      if (counts.running === 0 || Date.now() > deadline) return counts;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await client.end();
  }
}

const count = (mutations: SentMutation[], kind: SentMutation["kind"]) =>
  mutations.filter((m) => m.kind === kind).length;
