import type { BenchReport } from "./run-bench";
import { streamingReplicasLine } from "./streaming-replicas";

const REFERENCE_TEXT_CLAIM_MS = 1.8; // the reference writer's claim against same-region Postgres, median (docs/architecture.md#the-reference-writer)

/** The human report: the side-by-side table, targets missed, plans, the write side and the page. */
export function formatBenchReport(report: BenchReport): string {
  const lines: string[] = [];
  const { machine, load } = report;
  lines.push(
    `idem bench: ${report.rows.toLocaleString("en-US")} rows, ${report.iterations} timed runs per side and case`,
  );
  lines.push(
    `machine: ${machine.cpus} CPU cores (${machine.cpuModel}), PostgreSQL ${machine.postgres}, ${machine.date}`,
    streamingReplicasLine(machine.replicas),
  );
  lines.push(
    `load: ${load.rows.toLocaleString("en-US")} rows + ${load.events.toLocaleString("en-US")} events; rows ${load.seconds.rows.toFixed(1)} s, indexes ${load.seconds.indexes.toFixed(1)} s, rollup ${load.seconds.rollup.toFixed(1)} s, vacuum analyze ${load.seconds.vacuum.toFixed(1)} s, duplicate scan ${load.seconds.scan.toFixed(1)} s (${load.duplicates.toLocaleString("en-US")} duplicates found)`,
  );
  lines.push("");
  const header = `${"case".padEnd(50)} ${"SQL p50".padStart(8)} ${"SQL p95".padStart(8)} ${"API p50".padStart(8)} ${"API p95".padStart(8)} ${"API/SQL".padStart(8)} ${"stmts".padStart(5)}  targets`;
  lines.push(header, "-".repeat(header.length + 10));
  for (const r of report.results) {
    const target =
      r.missed.length > 0
        ? `MISSED: ${r.missed.join("; ")}`
        : r.targets.sqlP95Ms === null && r.targets.apiP95Ms === null
          ? "-"
          : "met";
    lines.push(
      `${r.name.padEnd(50)} ${r.sqlP50Ms.toFixed(2).padStart(8)} ${r.sqlP95Ms.toFixed(2).padStart(8)} ${r.apiP50Ms.toFixed(2).padStart(8)} ${r.apiP95Ms.toFixed(2).padStart(8)} ${r.ratio.toFixed(1).padStart(8)} ${String(r.statements).padStart(5)}  ${target}`,
    );
  }
  lines.push(
    "",
    "(ms; SQL = every statement the console's function sends for the operation, replayed one after another on one connection;",
  );
  lines.push(" API = the same operation over HTTP on the production build with a bearer token, whole body read)");

  lines.push(
    "",
    "floors: each case interleaved request by request with the console's trivial route and the bare handler (compare within a row)",
  );
  const floorHeader = `${"case".padEnd(50)} ${"API p50".padStart(8)}  ${"trivial".padStart(8)} ${"bare".padStart(8)} ${"case/triv".padStart(9)} ${"triv/bare".padStart(9)}`;
  lines.push(floorHeader, "-".repeat(floorHeader.length));
  for (const r of report.results) {
    const f = r.floors;
    lines.push(
      `${r.name.padEnd(50)} ${(f.caseP50Ms ?? r.apiP50Ms).toFixed(2).padStart(8)}${f.caseP50Ms === null ? "*" : " "} ${f.trivialP50Ms.toFixed(2).padStart(8)} ${f.bareP50Ms.toFixed(2).padStart(8)} ${f.caseOverTrivial.toFixed(1).padStart(9)} ${f.trivialOverBare.toFixed(1).padStart(9)}`,
    );
  }
  lines.push(
    "(ms, p50; trivial = the console's GET /api/health, Next's router + one SELECT 1 (no proxy); bare = the ref lookup on node:http + pg,",
    " bearer sha256 + one indexed token query, ref extraction, one range query, JSON: tools/bench/bare-lookup-server.ts;",
    " * a case that changes its row has no inputs for a second pass: its API p50 is the main table's, measured just before)",
  );

  const g = report.guard;
  lines.push("", "write side: the guard's claim path on the loaded table (one connection, side effect costs nothing)");
  lines.push(
    `  reference writer claim (INSERT … ON CONFLICT): p50 ${g.referenceTextMs.claimOnly.p50Ms.toFixed(3)} ms (same-region Postgres: ${REFERENCE_TEXT_CLAIM_MS} ms median)`,
  );
  lines.push(
    `  reference writer claim → complete:            p50 ${g.referenceTextMs.fresh.p50Ms.toFixed(3)} ms, p95 ${g.referenceTextMs.fresh.p95Ms.toFixed(3)} ms, ${g.roundTrips.referenceText.fresh} round trips`,
  );
  lines.push(
    `  guard claim → complete:                       p50 ${g.guardMs.fresh.p50Ms.toFixed(3)} ms, p95 ${g.guardMs.fresh.p95Ms.toFixed(3)} ms, ${g.roundTrips.guard.fresh} round trips`,
  );
  lines.push(
    `  reference writer repeat (INSERT, then SELECT): p50 ${g.referenceTextMs.repeat.p50Ms.toFixed(3)} ms, ${g.roundTrips.referenceText.repeat} round trips`,
  );
  lines.push(
    `  guard repeat (claim-or-read + replay event):  p50 ${g.guardMs.repeat.p50Ms.toFixed(3)} ms, ${g.roundTrips.guard.repeat} round trips`,
  );

  const p = report.page;
  lines.push("", `page weight: ${p.path}, signed in`);
  lines.push(
    `  JavaScript: ${p.scripts} scripts, ${p.javascriptKb.gzip} KB gzip (${p.javascriptKb.raw} KB raw); HTML ${p.htmlKb.gzip} KB gzip (${p.htmlKb.raw} KB raw)`,
    `  not counted: ${p.noModuleKb.scripts} nomodule script(s), ${p.noModuleKb.gzip} KB gzip (legacy polyfills; a browser with ES modules never fetches them)`,
    `  by script (KB gzip): ${p.scriptFiles.map((f) => `${f.src.replace(/^.*\//, "").replace(/\?.*$/, "")} ${f.gzipKb}`).join(", ")}`,
  );
  lines.push(
    `  time to first byte p50 ${p.ttfbMs.p50Ms.toFixed(1)} ms, p95 ${p.ttfbMs.p95Ms.toFixed(1)} ms; whole streamed HTML p50 ${p.fullMs.p50Ms.toFixed(1)} ms, p95 ${p.fullMs.p95Ms.toFixed(1)} ms`,
  );

  lines.push("", "plans (EXPLAIN (ANALYZE, BUFFERS), one block per statement):");
  for (const r of report.results) {
    lines.push("", `## ${r.name}`, r.plan || "   (no explainable statement)");
  }
  lines.push("");
  if (report.planProblems.length > 0) {
    lines.push("PLAN CHECK FAILED: sequential scans or sorts over a big table:");
    for (const problem of report.planProblems) lines.push(`  - ${problem}`);
  } else {
    lines.push("plan check: no sequential scan and no sort over a big table");
  }
  return lines.join("\n");
}
