import { performance } from "node:perf_hooks";
import pg from "pg";
import { isConsoleApplicationName } from "@/lib/db/application-name";

export const SAMPLER_APPLICATION_NAME = "idem-bench-lock-sampler";

/** One writer backend waiting on a heavyweight lock, and one backend it waits for. */
export type LockWait = {
  waitingPid: number;
  locktype: string;
  mode: string;
  relation: string | null;
  waitingQuery: string;
  blockingPid: number | null;
  blockingApplication: string | null;
  blockingState: string | null;
  blockingQuery: string | null;
};

export type LockSamplerReport = {
  samples: number;
  intervalMs: number;
  /** Mean time between samples actually achieved, ms. */
  meanGapMs: number;
  /** Samples in which at least one writer backend waited on a lock. */
  samplesWithWriterWaits: number;
  /** Distinct (blocking backend, statement) pairs a writer waited on, with how many samples saw each. */
  onConsole: (LockWait & { seenInSamples: number })[];
  onOthers: (LockWait & { seenInSamples: number })[];
  /**
   * What the writer's backends were doing, summed over samples (one count per backend per sample):
   * `active` with its wait event (LWLock:WALWrite, IO:DataFileRead…) or `active, on CPU` with none;
   * `idle` is a backend waiting for the writer's next call. The lightweight locks and I/O waits
   * pg_locks does not show (issue #31, item 3).
   */
  writerStates: Record<string, number>;
};

/**
 * Every ungranted lock of a writer backend (its application_name) and the backends that block it
 * (pg_blocking_pids). Lightweight locks (LWLock waits: buffer mappings, WAL insertion) are not in
 * pg_locks and not what this looks for: a console statement holding a row or table lock is.
 */
const WRITER_LOCK_WAITS = `
SELECT w.pid AS "waitingPid", l.locktype, l.mode,
       CASE WHEN l.relation IS NOT NULL THEN l.relation::regclass::text END AS relation,
       left(w.query, 300) AS "waitingQuery",
       b.pid AS "blockingPid", b.application_name AS "blockingApplication", b.state AS "blockingState",
       left(b.query, 500) AS "blockingQuery"
FROM pg_locks l
JOIN pg_stat_activity w ON w.pid = l.pid
LEFT JOIN LATERAL unnest(pg_blocking_pids(l.pid)) AS bp(pid) ON true
LEFT JOIN pg_stat_activity b ON b.pid = bp.pid
WHERE NOT l.granted AND w.application_name = $1 AND w.datname = current_database()`;

const WRITER_STATES = `
SELECT CASE WHEN state = 'active' THEN 'active, ' || coalesce(wait_event_type || ':' || wait_event, 'on CPU')
            ELSE coalesce(state, 'unknown') END AS what,
       count(*)::int AS backends
FROM pg_stat_activity
WHERE application_name = $1 AND datname = current_database()
GROUP BY 1`;

export type LockSampler = { stop(): Promise<LockSamplerReport> };

/** Samples pg_locks every `intervalMs` on a connection of its own until stopped. */
export async function startLockSampler(
  url: string,
  writerApplicationName: string,
  intervalMs: number,
): Promise<LockSampler> {
  const client = new pg.Client({ connectionString: url, application_name: SAMPLER_APPLICATION_NAME });
  await client.connect();
  const seen = new Map<string, LockWait & { seenInSamples: number }>();
  const writerStates: Record<string, number> = {};
  let samples = 0;
  let samplesWithWriterWaits = 0;
  let stopped = false;
  let failure: unknown = null;
  const began = performance.now();
  let lastAt = began;

  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      try {
        const { rows } = await client.query<LockWait>(WRITER_LOCK_WAITS, [writerApplicationName]);
        const states = await client.query<{ what: string; backends: number }>(WRITER_STATES, [writerApplicationName]);
        for (const { what, backends } of states.rows) writerStates[what] = (writerStates[what] ?? 0) + backends;
        samples += 1;
        lastAt = at;
        if (rows.length > 0) samplesWithWriterWaits += 1;
        for (const wait of rows) {
          const id = `${wait.blockingPid}\u0000${wait.blockingQuery}\u0000${wait.mode}`;
          const known = seen.get(id);
          if (known) known.seenInSamples += 1;
          else seen.set(id, { ...wait, seenInSamples: 1 });
        }
      } catch (error) {
        failure = error;
        return;
      }
      const rest = intervalMs - (performance.now() - at);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      await client.end();
      if (failure) throw failure;
      const waits = [...seen.values()];
      return {
        samples,
        intervalMs,
        meanGapMs: samples > 1 ? Math.round(((lastAt - began) / (samples - 1)) * 10) / 10 : 0,
        samplesWithWriterWaits,
        writerStates,
        onConsole: waits.filter(
          (w) => w.blockingApplication !== null && isConsoleApplicationName(w.blockingApplication),
        ),
        onOthers: waits.filter(
          (w) => w.blockingApplication === null || !isConsoleApplicationName(w.blockingApplication),
        ),
      };
    },
  };
}
