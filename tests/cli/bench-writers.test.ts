import { execFileSync } from "node:child_process";
import os from "node:os";
import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { CONSOLE_APPLICATION_NAME } from "@/lib/db/application-name";
import { parseCpuList } from "@/tools/bench/cpu-affinity";
import type { WriterImpactReport } from "@/tools/bench/writer-impact";
import { ensureProductionBuild } from "@/lib/build/next-build";
import { backendPid, waitForLockWaiters } from "../helpers/lock-waiters";
import { runCli, type CliResult } from "../helpers/run-cli";

const SMALL = ["--rows", "5000", "--seconds", "2", "--rate", "100", "--users", "4"];
const PLANTED = "LOCK TABLE idempotency IN SHARE MODE";

/**
 * The lock a writer's INSERT needs (SHARE conflicts with its ROW EXCLUSIVE), held on a connection
 * named like the console's, in the bench's own database once the loaded phase starts; released
 * after the writer has queued behind it for a second, so the run goes on and must fail at its end.
 */
function plantConsoleLock(serverUrl: string) {
  let stderr = "";
  let planted: Promise<void> | null = null;
  const onStderr = (text: string) => {
    stderr += text;
    const name = /bench database (idem_bench_\w+)/.exec(stderr)?.[1];
    if (planted || !name || !stderr.includes("writer with the console under load")) return;
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    planted = (async () => {
      const holder = new pg.Client({ connectionString: url.toString(), application_name: CONSOLE_APPLICATION_NAME });
      await holder.connect();
      try {
        const holderPid = await backendPid(holder);
        await holder.query("BEGIN");
        await holder.query(PLANTED); // the holder's last statement: the one the failure must name
        const watcher = new pg.Pool({ connectionString: url.toString(), max: 1 });
        try {
          await waitForLockWaiters(watcher, holderPid, 1, 60_000);
        } finally {
          await watcher.end();
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await holder.query("COMMIT");
      } finally {
        await holder.end();
      }
    })();
  };
  return {
    onStderr,
    done: () =>
      planted ??
      Promise.reject(new Error(`the loaded phase never started; the run's stderr ended:\n${stderr.slice(-2_000)}`)),
  };
}

describe("idem bench-writers at 5,000 rows", () => {
  let clean: CliResult;
  let report: WriterImpactReport;
  let blocked: CliResult;
  let plantedLock: Promise<void>;
  beforeAll(async () => {
    const serverUrl = inject("databaseUrl");
    await ensureProductionBuild({ quietStdout: true }); // once, before two runs that would each build
    const plant = plantConsoleLock(serverUrl);
    // Both at once: the planted run does not pin (two runs pinning one postmaster would fight over it).
    [clean, blocked] = await Promise.all([
      runCli(["bench-writers", ...SMALL, "--json"], { DATABASE_URL: serverUrl }),
      runCli(["bench-writers", ...SMALL, "--no-pin"], { DATABASE_URL: serverUrl }, plant.onStderr),
    ]);
    plantedLock = plant.done();
    if (!clean.stdout.trim()) throw new Error(`bench-writers printed no report (exit ${clean.code}):\n${clean.stderr}`);
    report = JSON.parse(clean.stdout) as WriterImpactReport;
  }, 900_000);

  it("measures the writer alone and under console load, pinned, isolated and shared, with their ratios", () => {
    expect(clean.code, clean.stderr).toBe(0);
    expect(report.rows).toBe(5_000);
    expect(report.consoleParallelWorkers).toBe(0);
    // The console's start builds the configured searchable fields' indexes: the load runs with them, as it would.
    expect(report.searchIndexesDuringPlacements).toEqual(["idem_search_charge_card_receipt"]);
    expect(report.placements.map((p) => p.placement)).toEqual(["pinned", "isolated", "shared"]);
    for (const p of report.placements) {
      if (!p.ran) throw new Error(`${p.placement} did not run: ${p.reason}`);
      for (const phase of [p.alone, p.loaded, p.loadedWithoutRounds]) {
        expect(phase.writer.calls, p.placement).toBe(200);
        expect(phase.writer.failed, p.placement).toBe(0);
        // Every counted call is lined up with the rounds: its scheduled start came back with its latency.
        expect(phase.tailByRounds.calls, p.placement).toBe(200);
        expect(phase.tailByRounds.slowest, p.placement).toBe(2);
        const s = phase.writer.fromSchedule;
        expect(s.p50Ms).toBeGreaterThan(0);
        expect(s.p99Ms).toBeGreaterThanOrEqual(s.p95Ms);
        expect(s.p95Ms).toBeGreaterThanOrEqual(s.p50Ms);
        // From the schedule includes the wait to be sent: never shorter than the call itself.
        expect(s.p50Ms).toBeGreaterThanOrEqual(phase.writer.service.p50Ms);
        expect(phase.locks.samples, `${p.placement}: the pg_locks sampler took samples`).toBeGreaterThan(10);
        // Each sample counts the writer's 8 backends once, by state and wait event.
        const states = Object.values(phase.locks.writerStates).reduce((sum, n) => sum + n, 0);
        expect(states).toBe(phase.locks.samples * 8);
        // The console starts no parallel workers (database.parallelWorkers 0, the default): the sampler saw none.
        expect(phase.locks.consoleParallelWorkers).toEqual({});
        // The console's backends and the WAL flushers seen while a writer queued on LWLock:WALWrite.
        expect(phase.locks.samplesWithWalWriteWaits).toBeLessThanOrEqual(phase.locks.samples);
        for (const who of Object.keys(phase.locks.walFlushersDuringWaits))
          expect(["writer", "console", "walwriter", "checkpointer", "background writer", "other client"]).toContain(
            who,
          );
        // 200 calls, each a claim and a completion: WAL written, commits counted, a CPU's busy share.
        const c = phase.counters;
        expect(c.wal.bytes).toBeGreaterThan(200 * 100);
        expect(c.database.commits).toBeGreaterThanOrEqual(400);
        expect(c.cpus.length).toBe(os.cpus().length);
        for (const cpu of c.cpus) expect(cpu.busy).toBeGreaterThan(0);
        // The writer's sessions alone time their WAL, and they wait for each commit's flush.
        if (report.writerIoTimed) expect(c.wal.syncMs).toBeGreaterThan(0);
      }
      expect(p.ratio.p99).toBeCloseTo(p.loaded.writer.fromSchedule.p99Ms / p.alone.writer.fromSchedule.p99Ms, 1);
      expect(p.ratioWithoutRounds.p99).toBeCloseTo(
        p.loadedWithoutRounds.writer.fromSchedule.p99Ms / p.alone.writer.fromSchedule.p99Ms,
        1,
      );
      // The third phase is the same load with the background round stopped: none ran in it.
      expect(p.loadedWithoutRounds.backgroundRounds).toBe(0);
      expect(p.loadedWithoutRounds.tailByRounds.rounds).toBe(0);
      expect(p.loadedWithoutRounds.load!.requests).toBeGreaterThan(0);
      // Under load the console's backends are sampled (its pool connected for the users' requests).
      expect(Object.values(p.loaded.locks.consoleStates).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
      const kinds = p.loaded.load!.kinds;
      expect(kinds.map((k) => k.name)).toEqual(
        expect.arrayContaining(["prometheus scrape", "CSV export", "ref lookup"]),
      );
      expect(
        kinds.every((k) => k.errors === 0),
        JSON.stringify(kinds),
      ).toBe(true);
    }
    expect(report.scrape.requests).toBeGreaterThan(0);
    // The round runs in the bench (the server's is off), once at each start and every 15 s.
    expect(report.backgroundRounds).toBeGreaterThanOrEqual(report.placements.length);
    expect(report.lockFailures).toEqual([]);
    expect(report.targets.map((t) => t.placement)).toEqual(["pinned", "isolated"]);
    // Every phase starts just after a checkpoint, so none lands in one phase only.
    expect(report.phaseCheckpoints).toBe(3 * report.placements.length);
    expect(report.targetMet).toBe(report.targets.every((t) => t.ratio <= report.targetP99Ratio));
  });

  it("pins PostgreSQL and the writer to one CPU and the console to the other, then puts them back", async () => {
    const pinned = report.placements[0]!;
    if (!pinned.ran || !pinned.check) throw new Error("no placement check");
    if ("unavailable" in report.pinning) throw new Error(report.pinning.unavailable);
    const { databaseCpus, consoleCpus, postmasterPid } = report.pinning;
    for (const group of [pinned.check.database, pinned.check.writer]) {
      expect(group.affinity).toEqual([databaseCpus]);
      expect(group.cpusSeen.every((cpu) => String(cpu) === databaseCpus)).toBe(true);
    }
    for (const group of [pinned.check.console, pinned.check.load]) {
      expect(group.affinity).toEqual([consoleCpus]);
      expect(group.cpusSeen.every((cpu) => String(cpu) === consoleCpus)).toBe(true);
    }
    expect(
      pinned.check.consoleBackends,
      "the pinned placement leaves the console's backends with PostgreSQL",
    ).toBeNull();
    // Afterwards the postmaster (and so every backend forked from now on) may run on every CPU again.
    const after = execFileSync("taskset", ["-p", "-c", String(postmasterPid)]).toString();
    expect(parseCpuList(after.split(":").pop()!.trim())).toHaveLength(os.cpus().length);
  });

  it("isolated: moves the console's PostgreSQL backends to the console's CPU, the rest of PostgreSQL stays", () => {
    const isolated = report.placements[1]!;
    if (!isolated.ran || !isolated.check) throw new Error("no placement check");
    if ("unavailable" in report.pinning) throw new Error(report.pinning.unavailable);
    const { databaseCpus, consoleCpus } = report.pinning;
    const backends = isolated.check.consoleBackends;
    // A CI log keeps the assertion's message, not the report: the whole check goes with each.
    const seen = `check: ${JSON.stringify(isolated.check)}`;
    // The console's pool holds connections under load: some were found and moved.
    expect(backends?.pids ?? 0, seen).toBeGreaterThan(0);
    expect(backends!.affinity, seen).toEqual([consoleCpus]);
    expect(
      backends!.cpusSeen.every((cpu) => String(cpu) === consoleCpus),
      seen,
    ).toBe(true);
    expect(isolated.check.database.affinity, seen).toEqual([databaseCpus]);
    expect(isolated.check.writer.affinity, seen).toEqual([databaseCpus]);
  });

  it("reports the console's peak memory while exporting, for growing exports", () => {
    const rows = report.exportMemory.map((e) => e.rows);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toBeGreaterThan(0);
    expect(rows[1]).toBeGreaterThan(rows[0]!);
    expect(rows.slice(2)).toEqual([5_000, 5_000]);
    for (const e of [...report.exportMemory, ...report.exportCodeMemory])
      expect(e.peakRssMb).toBeGreaterThanOrEqual(e.rssBeforeMb);
    // Beyond the API's bound, the export code itself: the whole 5,000-row table (its sizes are capped at the table's).
    expect(report.exportCodeMemory.map((e) => e.rows)).toEqual([5_000, 5_000]);
  });

  it("times the whole export alone and under the users, and the users' p99 without and with it", () => {
    const e = report.exportUnderLoad;
    expect(e.alone.runs).toHaveLength(3);
    expect(e.loaded.runs.length).toBeGreaterThan(0);
    for (const run of [...e.alone.runs, ...e.loaded.runs]) {
      expect(run.finished).toBe(true);
      // The same file each time, but for a claim turning stuck meanwhile ("false" → "true").
      expect(Math.abs(run.bytes - e.alone.runs[0]!.bytes)).toBeLessThan(100);
    }
    // Sent as a browser asks for it: gzip, every row ~370 B before it and ~70 after.
    expect(e.alone.runs.map((run) => run.encoding)).toEqual(["gzip", "gzip", "gzip"]);
    expect(e.alone.runs[0]!.bytes).toBeGreaterThan(5_000 * 30);
    // Two rounds of each condition, pooled; the users' mix is every GET case but the export.
    expect(e.usersAlone.loads).toHaveLength(2);
    expect(e.loaded.loads).toHaveLength(2);
    for (const load of [...e.usersAlone.loads, ...e.loaded.loads]) {
      expect(load.kinds.map((k) => k.name)).not.toContain("CSV export");
      expect(load.requests).toBeGreaterThan(0);
    }
    expect(e.usersAlone.latency.n).toBe(e.usersAlone.loads.reduce((sum, l) => sum + l.requests, 0));
    expect(e.loaded.latency.n).toBe(e.loaded.loads.reduce((sum, l) => sum + l.requests, 0));
    expect(e.exportRatio).toBeCloseTo(e.loaded.medianSeconds / e.alone.medianSeconds, 1);
    expect(e.met.export).toBe(e.exportRatio <= e.targets.exportRatio);
    expect(e.met.users).toBe(e.usersP99Ratio <= e.targets.usersP99Ratio);
  });

  it("fails, naming the statement, when a console connection holds a lock a writer waits on", async () => {
    await plantedLock;
    expect(blocked.code, blocked.stdout).toBe(1);
    expect(blocked.stderr).toContain("LOCK CHECK FAILED");
    expect(blocked.stderr).toContain(`application_name ${CONSOLE_APPLICATION_NAME}`);
    expect(blocked.stderr).toContain(PLANTED);
    expect(blocked.stderr).toMatch(/waited for RowExclusiveLock on relation idempotency/);
  });
});
