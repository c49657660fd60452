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
  /** The same for the console's backends (application_name idem-console…): whether they write or sync WAL, read, evict. */
  consoleStates: Record<string, number>;
  /** Samples in which a writer backend waited on LWLock:WALWrite (another backend was writing WAL out). */
  samplesWithWalWriteWaits: number;
  /**
   * In those samples, the backends writing or syncing WAL (IO:WALWrite, IO:WALSync): the likely holders
   * of the lock, by who they are — writer, console, walwriter, checkpointer, another client…
   */
  walFlushersDuringWaits: Record<string, number>;
  /**
   * Parallel workers whose leader is a console backend, one count per worker per sample, by the leader's
   * statement (its first 120 characters): processes the console's pools do not bound (database.parallelWorkers).
   */
  consoleParallelWorkers: Record<string, number>;
  /**
   * Console backends reading blocks into shared buffers (IO:DataFileRead, IPC:BufferIO,
   * LWLock:BufferMapping), one count per backend per sample, by statement (its first 120 characters):
   * which of the console's reads churn the buffers the writers' pages live in.
   */
  consoleBufferReads: Record<string, number>;
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

/** Every backend of the bench database, and the server's own processes (no database), with what it does now. */
const BACKEND_STATES = `
SELECT pid, leader_pid AS "leaderPid", application_name AS "applicationName", backend_type AS "backendType", state,
       wait_event_type || ':' || wait_event AS wait, left(query, 120) AS query
FROM pg_stat_activity
WHERE (datname = current_database() OR datname IS NULL) AND pid <> pg_backend_pid()`;

export type BackendState = {
  pid: number;
  leaderPid: number | null;
  applicationName: string;
  backendType: string;
  state: string | null;
  wait: string | null;
  query: string;
};

/** "active, <wait>" or "active, on CPU"; an idle backend by its state. */
function stateOf(row: BackendState): string {
  return row.state === "active" ? `active, ${row.wait ?? "on CPU"}` : (row.state ?? "unknown");
}

/** A backend's kind, in the words of the report: writer, console, another client, or the server process's type. */
function whoOf(row: BackendState, writerApplicationName: string): string {
  if (row.applicationName === writerApplicationName) return "writer";
  if (isConsoleApplicationName(row.applicationName)) return "console";
  if (row.backendType !== "client backend") return row.backendType;
  return "other client";
}

const WAL_FLUSH_WAITS = new Set(["IO:WALWrite", "IO:WALSync"]);
const BUFFER_READ_WAITS = new Set(["IO:DataFileRead", "IPC:BufferIO", "LWLock:BufferMapping"]);

/** What one sample's backends add to a phase's counts (see LockSamplerReport). */
export type BackendTallies = Pick<
  LockSamplerReport,
  "writerStates" | "consoleStates" | "consoleParallelWorkers" | "consoleBufferReads"
>;

export function emptyTallies(): BackendTallies {
  return { writerStates: {}, consoleStates: {}, consoleParallelWorkers: {}, consoleBufferReads: {} };
}

/** Adds one sample's backends to the tallies; true when a writer backend waits on LWLock:WALWrite. */
export function tallyBackends(
  backends: BackendState[],
  writerApplicationName: string,
  tallies: BackendTallies,
): boolean {
  let writerWaitsOnWalWrite = false;
  const byPid = new Map(backends.map((backend) => [backend.pid, backend]));
  for (const backend of backends) {
    const leader =
      backend.leaderPid !== null && backend.leaderPid !== backend.pid ? byPid.get(backend.leaderPid) : null;
    if (leader && whoOf(leader, writerApplicationName) === "console") add(tallies.consoleParallelWorkers, leader.query);
    const who = whoOf(backend, writerApplicationName);
    const states = who === "writer" ? tallies.writerStates : who === "console" ? tallies.consoleStates : null;
    if (states) add(states, stateOf(backend));
    if (backend.state !== "active") continue;
    if (who === "writer" && backend.wait === "LWLock:WALWrite") writerWaitsOnWalWrite = true;
    if (who === "console" && BUFFER_READ_WAITS.has(backend.wait ?? "")) add(tallies.consoleBufferReads, backend.query);
  }
  return writerWaitsOnWalWrite;
}

function add(tally: Record<string, number>, key: string): void {
  tally[key] = (tally[key] ?? 0) + 1;
}

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
  const tallies = emptyTallies();
  const walFlushersDuringWaits: Record<string, number> = {};
  let samplesWithWalWriteWaits = 0;
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
        const { rows: backends } = await client.query<BackendState>(BACKEND_STATES);
        const writerWaitsOnWalWrite = tallyBackends(backends, writerApplicationName, tallies);
        if (writerWaitsOnWalWrite) {
          samplesWithWalWriteWaits += 1;
          for (const backend of backends) {
            if (!WAL_FLUSH_WAITS.has(backend.wait ?? "")) continue;
            const who = whoOf(backend, writerApplicationName);
            walFlushersDuringWaits[who] = (walFlushersDuringWaits[who] ?? 0) + 1;
          }
        }
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
        ...tallies,
        samplesWithWalWriteWaits,
        walFlushersDuringWaits,
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
