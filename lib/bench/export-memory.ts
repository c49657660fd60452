import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
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
    const before = new Map(pids.map((pid) => [pid, memoryKb(pid, "VmRSS")]));
    for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const t = performance.now();
    const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: server.authorization } });
    if (!response.ok) throw new Error(`export ${path}: HTTP ${response.status}: ${await response.text()}`);
    let lines = 0;
    const bytes = await readBody(response, (chunk) => {
      for (const byte of chunk) if (byte === 10) lines += 1;
    });
    const seconds = (performance.now() - t) / 1000;
    let grewMost = { pid: server.pid, growth: -Infinity };
    for (const pid of pids) {
      const growth = memoryKb(pid, "VmHWM") - (before.get(pid) ?? 0);
      if (growth > grewMost.growth) grewMost = { pid, growth };
    }
    const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
    const rssBefore = before.get(grewMost.pid) ?? 0;
    samples.push({
      label,
      rows: Math.max(0, lines - 1), // the header line; a row's cells never hold a raw line break (JSON-encoded)
      megabytes: Math.round((bytes / 1024 / 1024) * 10) / 10,
      seconds: Math.round(seconds * 100) / 100,
      rssBeforeMb: mb(rssBefore),
      peakRssMb: mb(rssBefore + grewMost.growth),
      growthMb: mb(grewMost.growth),
    });
  }
  return samples;
}

function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
