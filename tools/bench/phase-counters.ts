import { readFileSync } from "node:fs";
import type pg from "pg";

/**
 * PostgreSQL's shared counters and the host's, read at a phase's start and end (issue #31, item 3):
 * what the writers' tail shares with the console beyond locks — WAL, checkpoints and the buffer
 * pool's evictions, the page cache, each CPU's busy time. The writer's own connections turn on
 * track_io_timing and track_wal_io_timing (writer-process.ts), so the read and WAL times here are
 * the writers' alone: no other session of the bench times its I/O.
 */
export type PhaseCounters = {
  seconds: number;
  wal: {
    bytes: number;
    records: number;
    fullPageImages: number;
    writes: number;
    syncs: number;
    writeMs: number;
    syncMs: number;
  };
  bgwriter: {
    checkpoints: number;
    buffersCheckpoint: number;
    buffersClean: number;
    buffersBackend: number;
    buffersBackendFsync: number;
    buffersAlloc: number;
  };
  /** This database: blocks found in shared buffers, blocks read in (from the page cache or the disk), the writers' read time. */
  database: { blocksHit: number; blocksRead: number; readMs: number; commits: number };
  /** /proc/vmstat: pages read from and written to block devices, major faults (0 where /proc is not there). */
  host: { pagesIn: number; pagesOut: number; majorFaults: number };
  /** Each CPU's share of the phase spent busy, waiting on I/O, and taken by the hypervisor (/proc/stat), 0–1. */
  cpus: { cpu: number; busy: number; iowait: number; steal: number }[];
};

type Snapshot = {
  at: number;
  sql: Record<string, number>;
  vmstat: Record<string, number>;
  cpus: { cpu: number; busy: number; iowait: number; steal: number; total: number }[];
};

const COUNTERS_SQL = `
SELECT w.wal_bytes::float8 AS wal_bytes, w.wal_records AS wal_records, w.wal_fpi AS wal_fpi,
       w.wal_write AS wal_write, w.wal_sync AS wal_sync, w.wal_write_time AS wal_write_time, w.wal_sync_time AS wal_sync_time,
       b.checkpoints_timed + b.checkpoints_req AS checkpoints, b.buffers_checkpoint, b.buffers_clean,
       b.buffers_backend, b.buffers_backend_fsync, b.buffers_alloc,
       d.blks_hit, d.blks_read, d.blk_read_time, d.xact_commit
FROM pg_stat_wal w, pg_stat_bgwriter b, pg_stat_database d
WHERE d.datname = current_database()`;

async function snapshot(client: pg.Client): Promise<Snapshot> {
  const { rows } = await client.query<Record<string, string | number>>(COUNTERS_SQL);
  const sql = Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
  return { at: performance.now(), sql, vmstat: readVmstat(), cpus: readCpuTimes() };
}

/** Starts counting now; `stop()` reads the counters again and returns the differences. */
export async function startPhaseCounters(client: pg.Client): Promise<{ stop(): Promise<PhaseCounters> }> {
  // pg_stat_* are read from a snapshot kept for the transaction; outside one each read is fresh.
  const start = await snapshot(client);
  return {
    async stop() {
      const end = await snapshot(client);
      return difference(start, end);
    },
  };
}

export function difference(start: Snapshot, end: Snapshot): PhaseCounters {
  const d = (key: string) => (end.sql[key] ?? 0) - (start.sql[key] ?? 0);
  const v = (key: string) => (end.vmstat[key] ?? 0) - (start.vmstat[key] ?? 0);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    seconds: round((end.at - start.at) / 1000),
    wal: {
      bytes: d("wal_bytes"),
      records: d("wal_records"),
      fullPageImages: d("wal_fpi"),
      writes: d("wal_write"),
      syncs: d("wal_sync"),
      writeMs: round(d("wal_write_time")),
      syncMs: round(d("wal_sync_time")),
    },
    bgwriter: {
      checkpoints: d("checkpoints"),
      buffersCheckpoint: d("buffers_checkpoint"),
      buffersClean: d("buffers_clean"),
      buffersBackend: d("buffers_backend"),
      buffersBackendFsync: d("buffers_backend_fsync"),
      buffersAlloc: d("buffers_alloc"),
    },
    database: {
      blocksHit: d("blks_hit"),
      blocksRead: d("blks_read"),
      readMs: round(d("blk_read_time")),
      commits: d("xact_commit"),
    },
    host: { pagesIn: v("pgpgin"), pagesOut: v("pgpgout"), majorFaults: v("pgmajfault") },
    cpus: end.cpus.map((e) => {
      const s = start.cpus.find((c) => c.cpu === e.cpu);
      const total = e.total - (s?.total ?? 0);
      const share = (key: "busy" | "iowait" | "steal") => (total > 0 ? round((e[key] - (s?.[key] ?? 0)) / total) : 0);
      return { cpu: e.cpu, busy: share("busy"), iowait: share("iowait"), steal: share("steal") };
    }),
  };
}

function readVmstat(): Record<string, number> {
  try {
    return Object.fromEntries(
      readFileSync("/proc/vmstat", "utf8")
        .split("\n")
        .map((line) => line.split(" "))
        .filter((parts) => parts.length === 2)
        .map(([key, value]) => [key!, Number(value)]),
    );
  } catch {
    return {};
  }
}

/** `cpuN user nice system idle iowait irq softirq steal …` in clock ticks since boot. */
export function parseCpuTimes(stat: string): Snapshot["cpus"] {
  return stat
    .split("\n")
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const [name, ...fields] = line.trim().split(/\s+/);
      const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as number[];
      const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
      const waited = iowait ?? 0;
      const stolen = steal ?? 0;
      return {
        cpu: Number(name!.slice(3)),
        busy,
        iowait: waited,
        steal: stolen,
        total: busy + (idle ?? 0) + waited + stolen,
      };
    });
}

function readCpuTimes(): Snapshot["cpus"] {
  try {
    return parseCpuTimes(readFileSync("/proc/stat", "utf8"));
  } catch {
    return [];
  }
}
