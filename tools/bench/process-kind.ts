import { statLineFields } from "./cpu-affinity";

/** What a process is, from its command line, for tools/bench/cpu-by-process.ts. First match wins. */
const KINDS: [RegExp, string][] = [
  // Chromium's helpers include a network service started as /proc/self/exe.
  [/chrom|--type=(renderer|utility|gpu-process|zygote)/i, "Chromium"],
  [/vitest\/dist\/workers|suppress-warnings\.cjs/, "vitest's workers (the tests, and what they call in-process)"],
  [/vitest/, "vitest's main processes"],
  [/history-worker/, "the demo history's workers (MCP clients and the shop's servers)"],
  [/scripts\/idem\.mjs/, "the CLI (its commands, the demo and serve launchers with their embedded database)"],
  [/next\/dist\/bin\/next build|jest-worker\/processChild/, "next build"],
  [/next\/dist\/bin\/next start|next-server/, "next start"],
  [/^postgres|\/postgres /, "PostgreSQL"],
  [/idem-test-scripts|--import tsx|tsx\/dist/, "test children and fixture servers (bundled or tsx)"],
  [/typescript|\btsc\b/, "tsc"],
  [/eslint/, "ESLint"],
  [/prettier/, "Prettier"],
  [/\bnpm\b/, "npm"],
  [/python3/, "Python"],
  [/pgbouncer|prometheus|alertmanager/, "PgBouncer, Prometheus, Alertmanager"],
  [/^(\/usr\/bin\/)?node\b/, "other node processes"],
];

export function processKind(command: string): string {
  for (const [pattern, kind] of KINDS) if (pattern.test(command)) return kind;
  return "not the tests' (kernel threads, the machine's services)";
}

/** utime + stime in seconds, the start time in clock ticks and the name, from a /proc/<pid>/stat line. */
export function cpuSecondsOf(
  stat: string,
  ticksPerSecond = 100,
): { seconds: number; startTicks: string; name: string } {
  const fields = statLineFields(stat);
  // Fields 14, 15 and 22 of proc(5).
  const seconds = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  return { seconds, startTicks: fields[19] ?? "", name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) };
}
