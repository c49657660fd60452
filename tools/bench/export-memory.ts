import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { exportRecords } from "@/lib/records/export-records";
import { EMPTY_FILTER } from "@/lib/records/list-filters";
import { processTree } from "./cpu-affinity";
import { readBody } from "./read-body";

export type ExportMemorySample = {
  label: string;
  rows: number;
  megabytes: number;
  seconds: number;
  /** The console server's resident memory before the export, and its peak during it (VmHWM, reset first). */
  rssBeforeMb: number;
  peakRssMb: number;
  growthMb: number;
};

/**
 * The console's peak resident memory while it streams CSV exports of growing size, one at a time:
 * Linux keeps each process's peak (VmHWM in /proc/<pid>/status) and resets it on
 * `echo 5 > /proc/<pid>/clear_refs`, so each export's peak is its own. Every process of the
 * console's tree is reset and read; the one that grew most is reported. A streamed export's peak
 * stays flat as rows grow; a buffered one grows with the file.
 */
export async function measureExportMemory(
  server: { baseUrl: string; authorization: string; pid: number },
  exports: { label: string; path: string }[],
): Promise<ExportMemorySample[]> {
  const samples: ExportMemorySample[] = [];
  for (const { label, path } of exports) {
    const pids = processTree(server.pid);
    // Reset first, then read: the peak starts at the RSS of the reset, so it is never below `before`.
    for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const before = new Map(pids.map((pid) => [pid, memoryKb(pid, "VmRSS")]));
    const t = performance.now();
    const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: server.authorization } });
    if (!response.ok) throw new Error(`export ${path}: HTTP ${response.status}: ${await response.text()}`);
    const { bytes, lines } = await readLines(response);
    const ms = performance.now() - t;
    let grewMost = { pid: server.pid, growth: -Infinity };
    for (const pid of pids) {
      const growth = memoryKb(pid, "VmHWM") - (before.get(pid) ?? 0);
      if (growth > grewMost.growth) grewMost = { pid, growth };
    }
    const rssBefore = before.get(grewMost.pid) ?? 0;
    samples.push(sample(label, lines, bytes, ms, rssBefore, grewMost.growth));
  }
  return samples;
}

/**
 * The console's export code beyond the API's bound: lib/records/export-records.ts run in this
 * process with `maxRows` raised to each size, its CSV read to the end and dropped, this process's
 * peak RSS reset before each. The API stops a file at EXPORT_MAX_ROWS; this shows the stream
 * itself stays flat at 200,000 and 1,000,000 rows.
 */
export async function measureExportCodeMemory(
  db: Db,
  actor: Actor,
  config: IdemConfig,
  sizes: number[],
): Promise<ExportMemorySample[]> {
  const samples: ExportMemorySample[] = [];
  for (const size of sizes) {
    const file = exportRecords(db, actor, EMPTY_FILTER, config, new Date(), { format: "csv", maxRows: size });
    writeFileSync("/proc/self/clear_refs", "5");
    const rssBefore = memoryKb(process.pid, "VmRSS");
    const t = performance.now();
    const { bytes, lines } = await readLines(new Response(file.stream));
    const growth = memoryKb(process.pid, "VmHWM") - rssBefore;
    const label = `${size.toLocaleString("en-US")} rows`;
    const again = samples.some((earlier) => earlier.label === label);
    samples.push(sample(again ? `${label} again` : label, lines, bytes, performance.now() - t, rssBefore, growth));
  }
  return samples;
}

/** A CSV export's size and its record lines: not the header, not a `#` line (the truncation note). */
async function readLines(response: Response): Promise<{ bytes: number; lines: number }> {
  let lines = 0;
  let notes = 0;
  let lineStart = true;
  const bytes = await readBody(response, (chunk) => {
    for (const byte of chunk) {
      if (lineStart && byte === 0x23) notes += 1;
      lineStart = byte === 0x0a;
      if (lineStart) lines += 1;
    }
  });
  return { bytes, lines: lines - notes };
}

function sample(
  label: string,
  lines: number,
  bytes: number,
  ms: number,
  rssBeforeKb: number,
  growthKb: number,
): ExportMemorySample {
  const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
  // The kernel batches RSS counters per thread (up to 64 pages each), so a peak read after the export can
  // come out a little below the RSS read before it (seen in CI: 428.6 against 428.7 MB). Below zero is no
  // growth, not a shrinking peak.
  const grewKb = Math.max(0, growthKb);
  return {
    label,
    rows: Math.max(0, lines - 1), // the header line; a row's cells never hold a raw line break (JSON-encoded)
    megabytes: Math.round((bytes / 1024 / 1024) * 10) / 10,
    seconds: Math.round(ms / 10) / 100,
    rssBeforeMb: mb(rssBeforeKb),
    peakRssMb: mb(rssBeforeKb + grewKb),
    growthMb: mb(grewKb),
  };
}

function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
