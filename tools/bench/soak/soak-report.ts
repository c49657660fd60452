import type { SoakReport } from "./run-soak";
import { consoleConnections } from "./soak-flat";
import { ROUTE_CLASSES } from "./soak-requests";
import type { SoakSample } from "./soak-sample";

const minutesSeconds = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
const duration = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

/** "console 4, console:export 1": backends by application_name, the console's named without the "idem-" prefix. */
function connectionsText(byName: Record<string, number>): string {
  const total = consoleConnections(byName);
  const parts = Object.entries(byName).map(([name, n]) => `${name.replace(/^idem-/, "")} ${n}`);
  return `${total}: ${parts.join(", ")}`;
}

/** A sample's requests sorted into the table's columns by their status label. */
function columns(sample: SoakSample) {
  const c = { ok: 0, client: 0, api503: 0, page503: 0, cut: 0 };
  for (const labels of Object.values(sample.byClass))
    for (const [label, n] of Object.entries(labels)) {
      if (/^[23]\d\d/.test(label)) c.ok += n;
      else if (/^4\d\d/.test(label)) c.client += n;
      else if (label.startsWith("503 database_")) c.api503 += n;
      else if (label === "503 page") c.page503 += n;
      else if (label === "stream cut by a restart") c.cut += n;
    }
  return c;
}

/** The soak's report as docs/bench.md shows it: the run, the table over time, the totals, flatness, invariants, the verdict. */
export function formatSoakReport(report: SoakReport): string {
  const o = report.options;
  const lines: string[] = [];
  lines.push(
    `idem soak, ${report.startedAt}: ${o.minutes} min, ${o.users} users, ${o.rows.toLocaleString("en-US")} seeded claims; PostgreSQL restarted every ${duration(o.restartEveryMs)} (fast, the middle one immediate); the processor hangs ${duration(o.hangForMs)} every ${duration(o.hangEveryMs)}`,
  );
  lines.push(
    `machine: ${report.machine.cpus} × ${report.machine.cpuModel}; load average ${report.machine.loadAverageAtStart.join(" ")} at the start, ${report.machine.loadAverageAtEnd.join(" ")} at the end`,
  );
  lines.push("");
  lines.push(
    "  time  requests   2xx/3xx  4xx  503 api  503 page  cut  FAIL  p50 ms  p99 ms  RSS MiB  connections (by application_name)  events",
  );
  for (const s of report.samples) {
    const c = columns(s);
    const conns = s.connections ? connectionsText(s.connections) : "db down";
    lines.push(
      `${minutesSeconds(s.atSeconds).padStart(6)}  ${String(s.requests).padStart(8)}  ${String(c.ok).padStart(8)}  ${String(c.client).padStart(3)}  ${String(c.api503).padStart(7)}  ${String(c.page503).padStart(8)}  ${String(c.cut).padStart(3)}  ${String(s.failures).padStart(4)}  ${String(s.p50Ms).padStart(6)}  ${String(s.p99Ms).padStart(6)}  ${String(s.rssMiB ?? "?").padStart(7)}  ${conns.padEnd(33)}  ${s.events.join(", ")}`,
    );
  }
  lines.push("");
  lines.push("Requests by route class and status (whole run):");
  for (const routeClass of ROUTE_CLASSES) {
    const labels = report.totals[routeClass];
    if (!labels) continue;
    const total = Object.values(labels).reduce((a, b) => a + b, 0);
    const latency = report.latency[routeClass];
    const parts = Object.entries(labels)
      .sort(([, a], [, b]) => b - a)
      .map(([label, n]) => `${label} × ${n}`);
    lines.push(
      `  ${routeClass.padEnd(14)} ${String(total).padStart(7)}  p50 ${latency?.p50Ms} ms, p99 ${latency?.p99Ms} ms, max ${latency?.maxMs} ms: ${parts.join(", ")}`,
    );
  }
  lines.push("");
  lines.push(
    `Restarts: ${report.restarts.map((r) => `${minutesSeconds(r.atSeconds)} ${r.mode} (${(r.tookMs / 1000).toFixed(1)} s)`).join(", ") || "none"}`,
  );
  lines.push(
    `Processor hangs: ${report.hangs.map((h) => `${minutesSeconds(h.atSeconds)} for ${h.forSeconds} s`).join(", ") || "none"}; it answered ${report.processor.answered} questions and held ${report.processor.hung} through a hang`,
  );
  lines.push("");
  lines.push("Flat (last third's max ≤ 1.2 × first third's max; connections + 2):");
  for (const f of report.flat) lines.push(`  ${f.held ? "ok  " : "GREW"} ${f.what}: ${f.detail}`);
  lines.push("");
  lines.push("Invariants at the end:");
  for (const i of report.invariants) lines.push(`  ${i.held ? "ok    " : "BROKEN"} ${i.name}: ${i.detail}`);
  if (report.failedRequests.length > 0) {
    lines.push("");
    lines.push(`Answers that broke the rules (the first ${report.failedRequests.length}):`);
    for (const f of report.failedRequests)
      lines.push(`  ${f.at} ${f.name} ${f.path} → ${f.label}: ${f.detail.replace(/\s+/g, " ").slice(0, 200)}`);
  }
  lines.push("");
  lines.push(
    report.failures.length === 0
      ? "Result: PASS"
      : `Result: FAIL\n${report.failures.map((f) => `  - ${f}`).join("\n")}`,
  );
  return lines.join("\n");
}
