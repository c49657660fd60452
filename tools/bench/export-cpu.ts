// The export code's own cost, in this process (issue #31, item 1):
//   npx tsx --conditions=react-server tools/bench/export-cpu.ts <database-url> [runs=4]
// Streams the unfiltered CSV export (lib/records/export-records.ts, the API's bound of 100,000 rows)
// from a loaded bench database (`idem bench … --keep`) `runs` times, reading it to the end, and prints
// each run's bytes, wall time, this process's CPU time and its main thread's (the event loop's; the rows
// are written on the export's worker thread). Add `node --cpu-prof` to see where it goes.
import { performance } from "node:perf_hooks";
import { configSchema } from "@/lib/config/schema";
import { createPrismaClient } from "@/lib/db/prisma";
import { parseWholeNumber } from "@/lib/field-rules/whole-number";
import { exportRecords } from "@/lib/records/export-records";
import { stopExportWorker } from "@/lib/records/export-worker-client";
import { EMPTY_FILTER } from "@/lib/records/list-filters";
import { mainThreadCpuTicks } from "./cpu-affinity";
import { BENCH_ACTOR } from "./run-bench";

const [url, runsText] = process.argv.slice(2);
if (!url || !/^postgres(ql)?:\/\//.test(url))
  refuse("expected a database URL first (a bench database kept with --keep)");
const parsed = runsText === undefined ? { ok: true as const, value: 4 } : parseWholeNumber(runsText, 1, 100);
const runs = parsed.ok ? parsed.value : refuse(`runs: ${parsed.message}`);

function refuse(message: string): never {
  console.error(`export-cpu: ${message}`);
  process.exit(2);
}

const db = createPrismaClient(url, 2);
try {
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const loop = mainThreadCpuMs();
    const file = exportRecords(db, BENCH_ACTOR, EMPTY_FILTER, configSchema.parse({}), new Date(), { format: "csv" });
    let bytes = 0;
    const reader = file.stream.getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) bytes += part.value.byteLength;
    const used = process.cpuUsage(cpu);
    console.log(
      `run ${i + 1}: ${bytes.toLocaleString("en-US")} bytes in ${Math.round(performance.now() - started)} ms, CPU ${Math.round((used.user + used.system) / 1000)} ms, of it the main thread ${mainThreadCpuMs() - loop} ms`,
    );
  }
} finally {
  await stopExportWorker();
  await db.$disconnect();
}

/** The main thread's CPU time in ms (clock ticks of 10 ms). */
function mainThreadCpuMs(): number {
  return (mainThreadCpuTicks(process.pid) ?? 0) * 10;
}
