import type { ExportMemorySample } from "./export-memory";
import type { ConsoleLoadReport } from "./console-load";
import type { LoadReport } from "./load-bench-data";
import type { ExportRun, ExportUnderLoad } from "./export-under-load";
import type { LockWait } from "./lock-sampler";
import type { GroupCheck } from "./writer-placement";
import type { WriterImpactReport } from "./writer-impact";
import { streamingReplicasLine } from "./streaming-replicas";

const ms = (value: number) => value.toFixed(2).padStart(8);

/** The human report of `idem bench-writers`: the writer-impact table, the load, the lock sampler, the pinning, export memory. */
export function formatWriterImpactReport(report: WriterImpactReport): string {
  const lines: string[] = [];
  const { machine } = report;
  lines.push(
    `idem bench-writers: ${report.rows.toLocaleString("en-US")} rows; the guard's claim → complete at ${report.rate} calls/s, open loop, ${report.seconds} s per phase (${report.writerConnections} writer connections)`,
    `machine: ${machine.cpus} CPU cores (${machine.cpuModel}), PostgreSQL ${machine.postgres}, ${machine.date}, load average ${machine.loadAverage.join(" ")}`,
    streamingReplicasLine(machine.replicas),
    `the console's parallel workers per statement (database.parallelWorkers, --console-parallel-workers): ${report.consoleParallelWorkers}`,
    `searchable-field indexes during the placements (built as the console's start builds them): ${report.searchIndexesDuringPlacements.join(", ") || "none"}`,
    loadLine(report.load),
    "",
    "writer latency, ms, from each call's scheduled start (a stall is counted in full, not hidden by the schedule);",
    `"no round": loaded, with the console's background round (metrics roll-up + duplicate scan, every 15 s) stopped; "ratio/nr": that phase over alone:`,
  );
  const header = `${"placement".padEnd(10)} ${"phase".padEnd(8)} ${"calls".padStart(6)} ${"failed".padStart(6)} ${"p50".padStart(8)} ${"p95".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(8)}  service p99  send lag p99`;
  lines.push(header, "-".repeat(header.length));
  for (const p of report.placements) {
    if (!p.ran) {
      lines.push(`${p.placement.padEnd(10)} not measured: ${p.reason}`);
      continue;
    }
    for (const [phase, { writer: figures, backgroundRounds }] of [
      ["alone", p.alone],
      ["loaded", p.loaded],
      ["no round", p.loadedWithoutRounds],
    ] as const) {
      const s = figures.fromSchedule;
      lines.push(
        `${p.placement.padEnd(10)} ${phase.padEnd(8)} ${String(figures.calls).padStart(6)} ${String(figures.failed).padStart(6)} ${ms(s.p50Ms)} ${ms(s.p95Ms)} ${ms(s.p99Ms)} ${ms(s.maxMs)}  ${ms(figures.service.p99Ms)}     ${ms(figures.sendLag.p99Ms)}  ${backgroundRounds} background rounds`,
      );
    }
    for (const [label, r] of [
      ["ratio", p.ratio],
      ["ratio/nr", p.ratioWithoutRounds],
    ] as const)
      lines.push(
        `${p.placement.padEnd(10)} ${label.padEnd(8)} ${"".padStart(13)} ${r.p50.toFixed(2).padStart(8)} ${r.p95.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`,
      );
  }
  lines.push("");
  if (report.targets.length === 0)
    lines.push(`target (pinned writer p99 ratio ≤ ${report.targetP99Ratio}): not measured — no pinned placement ran`);
  for (const t of report.targets)
    lines.push(
      `target (${t.placement} writer p99 ratio ≤ ${report.targetP99Ratio}): ${t.met ? "MET" : "MISSED"} (p99 ${t.p99AloneMs.toFixed(2)} ms alone → ${t.p99LoadedMs.toFixed(2)} ms loaded, ratio ${t.ratio.toFixed(2)})`,
    );
  for (const p of report.placements) {
    if (!p.ran) continue;
    if (p.alone.writer.failed + p.loaded.writer.failed > 0)
      lines.push(
        `${p.placement}: ${p.alone.writer.failed + p.loaded.writer.failed} writer calls FAILED: ${p.alone.writer.firstError ?? p.loaded.writer.firstError}`,
      );
  }

  lines.push(...tailByRoundsLines(report));

  lines.push(
    "",
    "console load (loaded phases; closed loop, each user one request after another; unfinished: running when the phase ended):",
  );
  for (const p of report.placements) {
    if (!p.ran || !p.loaded.load) continue;
    const load = p.loaded.load;
    lines.push(`  ${p.placement}: ${load.users} users, ${load.requests} requests in ${load.seconds} s`);
    for (const k of load.kinds)
      lines.push(
        `    ${k.name.padEnd(50)} ${String(k.requests).padStart(6)} requests ${String(k.unfinished).padStart(3)} unfinished ${String(k.errors).padStart(3)} errors  p50 ${k.latency.p50Ms.toFixed(1).padStart(7)} ms  p95 ${k.latency.p95Ms.toFixed(1).padStart(7)} ms${k.firstError ? `  first error: ${k.firstError}` : ""}`,
      );
  }

  lines.push(
    "",
    `pg_locks sampler (every ${report.sampleMs} ms, through every phase; writer = application_name idem-bench-writer):`,
  );
  for (const p of report.placements) {
    if (!p.ran) continue;
    for (const [phase, locks] of [
      ["alone", p.alone.locks],
      ["loaded", p.loaded.locks],
      ["loaded, no round", p.loadedWithoutRounds.locks],
    ] as const)
      lines.push(
        `  ${p.placement} ${phase}: ${locks.samples} samples (mean gap ${locks.meanGapMs} ms), ${locks.samplesWithWriterWaits} with a writer waiting on a lock; on a console backend: ${locks.onConsole.length}, on another: ${locks.onOthers.length}`,
      );
    for (const wait of [...p.alone.locks.onOthers, ...p.loaded.locks.onOthers, ...p.loadedWithoutRounds.locks.onOthers])
      lines.push(`    other: ${describeLockWait(wait)}`);
  }
  lines.push(...sharedResourceLines(report));
  lines.push(
    `  prometheus scrape: ${report.scrape.requests} scrapes (${report.scrape.errors} errors) ran in the loaded phases with the sampler going; ${report.lockFailures.length === 0 ? "no lock a writer waited on was held by a console backend" : `${report.lockFailures.length} console lock(s) a writer waited on (below)`}`,
  );

  const search = report.searchIndexes;
  lines.push(
    "",
    `searchable-field indexes (idem db index), writer alone, ${search.rounds} rounds of each: none p99 ${search.without.p99Ms} ms (p50 ${search.without.p50Ms} ms; p99 by round ${search.without.p99ByRound.join(" / ")} ms)`,
    ...search.each.map(
      (e) =>
        `  with ${e.index} (${e.tool} ${e.label} = ${e.path}) only: p99 ${e.latency.p99Ms} ms (p50 ${e.latency.p50Ms} ms; p99 by round ${e.latency.p99ByRound.join(" / ")} ms), ${e.p99Ratio}× the p99 without`,
    ),
  );
  lines.push("", `checkpoints: ${report.phaseCheckpoints} CHECKPOINTs, one just before each measured phase`);
  lines.push("", "pinning:");
  if ("unavailable" in report.pinning) lines.push(`  unavailable: ${report.pinning.unavailable}`);
  else if (!report.placements.some((p) => p.placement !== "shared")) lines.push("  not used (--no-pin)");
  else {
    lines.push(
      `  taskset -a -p -c ${report.pinning.databaseCpus} on the postmaster (pid ${report.pinning.postmasterPid}) and every process forked from it (backends fork from it and inherit its CPU), and on the writer process;`,
      `  taskset -a -p -c ${report.pinning.consoleCpus} on the console server's process tree and on this process (the load generator and the sampler's client); restored afterwards`,
      `  isolated, also: taskset -a -p -c ${report.pinning.consoleCpus} on every backend of the bench database whose application_name is the console's, and every parallel worker of theirs, looked for every 20 ms`,
    );
    for (const p of report.placements) {
      if (!p.ran || !p.check) continue;
      const row = (name: string, g: GroupCheck) =>
        `    ${name.padEnd(34)} ${String(g.pids).padStart(3)} processes, affinity ${g.affinity.join(" | ")}; the ${g.pids - g.idle} that ran since pinning last ran on CPU (ps -o psr) ${g.cpusSeen.join(", ")}`;
      lines.push(
        `  mid-way through the ${p.placement} loaded phase:`,
        row("PostgreSQL (postmaster + children)", p.check.database),
        row("writer", p.check.writer),
        row("console server", p.check.console),
        row("load generator (this process)", p.check.load),
        ...(p.check.consoleBackends ? [row("console's PostgreSQL backends", p.check.consoleBackends)] : []),
      );
    }
  }

  lines.push("", ...exportUnderLoadLines(report.exportUnderLoad));

  lines.push(
    "",
    "export memory: the console server's peak RSS (VmHWM, reset before each) while it streams a CSV export:",
  );
  for (const e of report.exportMemory) lines.push(exportLine(e));

  lines.push(
    "export code beyond the API's bound (lib/records/export-records.ts with maxRows raised, in the bench's process; its peak RSS):",
  );
  for (const e of report.exportCodeMemory) lines.push(exportLine(e));

  if (report.lockFailures.length > 0) {
    lines.push("", "LOCK CHECK FAILED: a writer waited on a lock held by a console backend:");
    for (const wait of report.lockFailures) lines.push(`  - ${describeLockWait(wait)}`);
  } else lines.push("", "lock check: no writer waited on a lock held by a console backend");
  return lines.join("\n");
}

function loadLine(load: LoadReport): string {
  const s = load.seconds;
  return `load: ${load.rows.toLocaleString("en-US")} rows + ${load.events.toLocaleString("en-US")} events; rows ${s.rows.toFixed(1)} s, indexes ${s.indexes.toFixed(1)} s, rollup ${s.rollup.toFixed(1)} s, vacuum analyze ${s.vacuum.toFixed(1)} s, duplicate scan ${s.scan.toFixed(1)} s (${load.duplicates.toLocaleString("en-US")} duplicates found)`;
}

function exportUnderLoadLines(e: ExportUnderLoad): string[] {
  const requests = (loads: ConsoleLoadReport[]) => loads.reduce((sum, l) => sum + l.requests, 0);
  const phases = (loads: ConsoleLoadReport[]) => `${loads.map((l) => `${l.seconds} s`).join(" + ")}, pooled`;
  const runs = (list: ExportRun[]) =>
    list
      .map((r) => (r.finished ? `${r.seconds.toFixed(2)} s` : `unfinished after ${r.seconds.toFixed(2)} s`))
      .join(", ");
  const verdict = (met: boolean) => (met ? "met" : "MISSED");
  const first = e.alone.runs[0];
  const sent = `${((first?.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB as sent${first?.encoding ? `, ${first.encoding}` : ""}`;
  return [
    `export under load (issue #31): GET ${e.path} (${sent}), ${e.users} API users on every other GET case:`,
    `  export alone             median ${e.alone.medianSeconds.toFixed(2)} s (${runs(e.alone.runs)})`,
    `  export under the users   median ${e.loaded.medianSeconds.toFixed(2)} s (${runs(e.loaded.runs)}): ${e.exportRatio.toFixed(2)}× alone, target ≤ ${e.targets.exportRatio}: ${verdict(e.met.export)}`,
    `  users without the export p99 ${e.usersAlone.latency.p99Ms.toFixed(1)} ms, p50 ${e.usersAlone.latency.p50Ms.toFixed(1)} ms (${requests(e.usersAlone.loads)} requests in ${phases(e.usersAlone.loads)})`,
    `  users with it            p99 ${e.loaded.latency.p99Ms.toFixed(1)} ms, p50 ${e.loaded.latency.p50Ms.toFixed(1)} ms (${requests(e.loaded.loads)} requests in ${phases(e.loaded.loads)}): ${e.usersP99Ratio.toFixed(2)}× at p99, target ≤ ${e.targets.usersP99Ratio}: ${verdict(e.met.users)}`,
  ];
}

function exportLine(e: ExportMemorySample): string {
  return `  ${e.label.padEnd(16)} ${String(e.rows).padStart(8)} rows ${e.megabytes.toFixed(1).padStart(7)} MB in ${e.seconds.toFixed(2).padStart(6)} s: RSS ${e.rssBeforeMb.toFixed(1)} MB before, peak ${e.peakRssMb.toFixed(1)} MB (+${e.growthMb.toFixed(1)} MB)`;
}

/** One line naming the statement that held the lock and what the writer wanted. */
export function describeLockWait(wait: LockWait & { seenInSamples: number }): string {
  const target = wait.relation ? `${wait.locktype} ${wait.relation}` : wait.locktype;
  return `writer backend ${wait.waitingPid} waited for ${wait.mode} on ${target} (${wait.seenInSamples} samples) behind backend ${wait.blockingPid ?? "?"} (application_name ${wait.blockingApplication ?? "?"}, ${wait.blockingState ?? "?"}) running: ${oneLine(wait.blockingQuery)} — the writer's statement: ${oneLine(wait.waitingQuery)}`;
}

function oneLine(sql: string | null): string {
  return sql === null ? "(unknown)" : sql.replace(/\s+/g, " ").trim();
}

/**
 * Issue #31, item 3: what the writers shared with the console in each phase, beyond locks — their
 * backends' wait events, the WAL, checkpoints, buffer evictions, reads from outside shared buffers,
 * the page cache and each CPU's busy share.
 */
function sharedResourceLines(report: WriterImpactReport): string[] {
  const lines = [
    "",
    `what the writers share (per phase; ${report.writerIoTimed ? "read and WAL times are the writer's sessions' own (track_io_timing on them only)" : "I/O times not recorded: the writer's sessions could not turn on track_io_timing"}):`,
  ];
  const share = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)} %` : "—");
  for (const p of report.placements) {
    if (!p.ran) continue;
    for (const [phase, data] of [
      ["alone", p.alone],
      ["loaded", p.loaded],
      ["loaded, no round", p.loadedWithoutRounds],
    ] as const) {
      const c = data.counters;
      const calls = Math.max(1, data.writer.calls);
      const activeShares = (states: Record<string, number>) => {
        const active = Object.entries(states).filter(([what]) => what.startsWith("active"));
        const total = active.reduce((sum, [, n]) => sum + n, 0);
        const top = active
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5)
          .map(([what, n]) => `${what.slice("active, ".length)} ${share(n, total)}`)
          .join(", ");
        return { total, top };
      };
      const { total: activeTotal, top } = activeShares(data.locks.writerStates);
      const consoleActive = activeShares(data.locks.consoleStates);
      const flushers = Object.entries(data.locks.walFlushersDuringWaits)
        .sort((a, b) => b[1] - a[1])
        .map(([who, n]) => `${who} ${n}`)
        .join(", ");
      const parallel = Object.entries(data.locks.consoleParallelWorkers).sort((a, b) => b[1] - a[1]);
      const workerSamples = parallel.reduce((sum, [, n]) => sum + n, 0);
      const reads = Object.entries(data.locks.consoleBufferReads).sort((a, b) => b[1] - a[1]);
      const readSamples = reads.reduce((sum, [, n]) => sum + n, 0);
      const byStatement = (counted: [string, number][]) =>
        counted
          .slice(0, 3)
          .map(([query, n]) => `${n} × "${query.replace(/\s+/g, " ")}…"`)
          .join("; ");
      const perSecond = (n: number) => (c.seconds > 0 ? n / c.seconds : 0);
      lines.push(
        `  ${p.placement} ${phase}: writer backends active in ${activeTotal} backend-samples: ${top || "none"}`,
        `    console backends active in ${consoleActive.total} backend-samples: ${consoleActive.top || "none"}`,
        `    a writer waited on LWLock:WALWrite in ${data.locks.samplesWithWalWriteWaits} samples; backends then writing or syncing WAL: ${flushers || "none seen"}`,
        `    parallel workers of console statements: ${workerSamples} worker-samples${
          parallel.length > 0 ? `, under ${byStatement(parallel)}` : ""
        }`,
        `    console backends reading into shared buffers: ${readSamples} backend-samples${
          reads.length > 0 ? `, in ${byStatement(reads)}` : ""
        }`,
        `    WAL ${(perSecond(c.wal.bytes) / 1e6).toFixed(2)} MB/s (${c.wal.fullPageImages} full-page images), ${c.wal.syncs} syncs; writer WAL write ${(c.wal.writeMs / calls).toFixed(3)} + sync ${(c.wal.syncMs / calls).toFixed(3)} ms per call; ${c.bgwriter.checkpoints} checkpoints`,
        `    buffers: ${perSecond(c.bgwriter.buffersAlloc).toFixed(0)}/s allocated (read in), ${c.bgwriter.buffersBackend} written by backends, ${c.bgwriter.buffersClean} by the bgwriter; database blocks read ${perSecond(c.database.blocksRead).toFixed(0)}/s, hit ${share(c.database.blocksHit, c.database.blocksHit + c.database.blocksRead)}; writer read time ${(c.database.readMs / calls).toFixed(3)} ms per call`,
        `    host: ${c.host.pagesIn} kB read from disk, ${c.host.majorFaults} major faults; CPU busy ${c.cpus.map((u) => `cpu${u.cpu} ${(u.busy * 100).toFixed(0)} %${u.iowait > 0.005 ? ` (+${(u.iowait * 100).toFixed(0)} % iowait)` : ""}${u.steal > 0.005 ? ` (${(u.steal * 100).toFixed(0)} % stolen)` : ""}`).join(", ")}`,
      );
    }
  }
  return lines;
}

/**
 * Issue #31, item 3: whether the slowest writer calls line up with the console's background rounds. A round
 * that made the tail shows as a share of the slowest far above the share of all calls that overlapped one.
 */
function tailByRoundsLines(report: WriterImpactReport): string[] {
  const lines = [
    "",
    "the slowest 1 % of writer calls against the console's background rounds (a call overlaps a round when its span, scheduled start to completion, meets the round's):",
  ];
  const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : "n/a");
  const orNone = (ms: number | null) => (ms === null ? "none" : `${ms.toFixed(2)} ms`);
  for (const p of report.placements) {
    if (!p.ran) continue;
    for (const [phase, { tailByRounds: t }] of [
      ["alone", p.alone],
      ["loaded", p.loaded],
      ["no round", p.loadedWithoutRounds],
    ] as const) {
      lines.push(
        t.rounds === 0
          ? `  ${p.placement} ${phase}: no round ran in the phase`
          : `  ${p.placement} ${phase}: ${t.rounds} round(s) over ${pct(t.roundShare, 1)} of the phase (roll-up ${pct(t.rollUpShare, 1)}, scan ${pct(t.scanShare, 1)}); calls overlapping one ${t.callsInRounds} of ${t.calls} (${pct(t.callsInRounds, t.calls)}); of the ${t.slowest} slowest, ${t.slowestInRounds} (${pct(t.slowestInRounds, t.slowest)}: roll-up ${t.slowestInRollUp}, scan ${t.slowestInScan}); p99 in rounds ${orNone(t.p99InRoundsMs)}, outside ${orNone(t.p99OutsideMs)}`,
      );
    }
  }
  return lines;
}
