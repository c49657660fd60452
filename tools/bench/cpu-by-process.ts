// `npx tsx tools/bench/cpu-by-process.ts [--every-ms 500] -- <command…>`: runs the command and, until it ends,
// reads every process's CPU time from /proc; then prints the CPU seconds by what the processes were (Chromium,
// vitest's workers, the CLI, next start, PostgreSQL…) and the heaviest command lines. Where `npm test`'s time
// goes (docs/test-time.md): a run on 2 busy cores is as long as its CPU over 2.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { cpuSecondsOf, processKind } from "./process-kind";
import { samplerArgs } from "./sampler-args";

const parsed = samplerArgs(process.argv.slice(2));
if ("refusal" in parsed) {
  console.error(parsed.refusal);
  process.exit(2);
}
const { everyMs } = parsed;

/** Each process seen, by pid and start time (a pid is reused): its command line and the CPU seconds last read. */
const seen = new Map<string, { command: string; seconds: number }>();
const byKind = new Map<string, number>();
const byCommand = new Map<string, number>();

function sample(): void {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue; // not the sampler itself
    try {
      const read = cpuSecondsOf(readFileSync(`/proc/${pid}/stat`, "utf8"));
      const key = `${pid}:${read.startTicks}`;
      const before = seen.get(key);
      // The command line as first seen: a process that execs later (the chromium wrapper) keeps its first name.
      const command =
        before?.command ?? (readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim() || read.name);
      seen.set(key, { command, seconds: read.seconds });
      const spent = read.seconds - (before?.seconds ?? 0);
      if (spent <= 0) continue;
      const kind = processKind(command);
      byKind.set(kind, (byKind.get(kind) ?? 0) + spent);
      const shown = command.replace(/\d{4,}/g, "N").slice(0, 120);
      byCommand.set(shown, (byCommand.get(shown) ?? 0) + spent);
    } catch {
      // The process ended between the listing and the read.
    }
  }
}

const startedAt = Date.now();
sample(); // what ran before the command counts from here, not from its start
byKind.clear();
byCommand.clear();
const timer = setInterval(sample, everyMs);
const child = spawn(parsed.command, parsed.commandArgs, { stdio: "inherit" });
child.on("close", (code, signal) => {
  clearInterval(timer);
  sample();
  const wall = (Date.now() - startedAt) / 1000;
  const total = [...byKind.values()].reduce((sum, s) => sum + s, 0);
  const rows = (map: Map<string, number>, limit: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, s]) => `${s.toFixed(0).padStart(7)}  ${name}`)
      .join("\n");
  console.log(`\nCPU seconds by what the process was (${wall.toFixed(0)} s wall, ${total.toFixed(0)} CPU s in all):`);
  console.log(rows(byKind, 30));
  console.log("\nThe heaviest command lines (numbers of 4+ digits as N):");
  console.log(rows(byCommand, 40));
  process.exit(code ?? (signal ? 1 : 0));
});
