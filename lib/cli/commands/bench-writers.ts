import "server-only";
import type { Command } from "commander";
import { describeLockWait, formatWriterImpactReport } from "@/tools/bench/writer-impact-report";
import { runWriterImpact } from "@/tools/bench/writer-impact";
import type { Placement } from "@/tools/bench/writer-placement";
import { wholeNumberOption } from "@/lib/cli/options";
import { DEFAULT_CONSOLE_PARALLEL_WORKERS } from "@/lib/config/schema";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { createProgressBar } from "@/lib/terminal/progress";

type Options = {
  rows: number;
  rate: number;
  seconds: number;
  users: number;
  sampleMs: number;
  consoleParallelWorkers: number;
  pin?: boolean;
  keep?: boolean;
  json?: boolean;
};

export function registerBenchWriters(program: Command): void {
  program
    .command("bench-writers")
    .description(
      "the writers' cost of the console: the guard's claim → complete at a fixed rate alone, then with the console under API load, pinned (PostgreSQL and the writer on one core, the console on the other), isolated (as pinned, and the console's PostgreSQL backends on the console's core) and shared; exit 1 when a writer waits on a lock a console connection holds",
    )
    .option("--rows <n>", "claims to load into a fresh bench database", wholeNumberOption(1_000, 100_000_000), 200_000)
    .option("--rate <n>", "writer calls per second", wholeNumberOption(1, 5_000), 200)
    .option("--seconds <n>", "measured seconds per phase (after 1 s of warm-up)", wholeNumberOption(1, 3_600), 10)
    .option("--users <n>", "concurrent API users in the loaded phase", wholeNumberOption(1, 256), 16)
    .option("--sample-ms <n>", "pg_locks sampling interval", wholeNumberOption(5, 1_000), 20)
    .option(
      "--console-parallel-workers <n>",
      "the console's database.parallelWorkers (PostgreSQL's own default is 2)",
      wholeNumberOption(0, 64),
      DEFAULT_CONSOLE_PARALLEL_WORKERS,
    )
    .option("--pin", "only the pinned and isolated placements (taskset)")
    .option("--no-pin", "only the shared placement (no pinning)")
    .option("--keep", "keep the bench database afterwards")
    .option("--json", "print the report as JSON")
    .action(
      runCommand(async (options: Options) => {
        // Progress goes to stderr in both modes: stdout holds only the report (JSON with --json).
        const log = (line: string) => process.stderr.write(`${line}\n`);
        // Commander leaves `pin` undefined when neither flag is given: then both placements run.
        const placements: Placement[] =
          options.pin === true
            ? ["pinned", "isolated"]
            : options.pin === false
              ? ["shared"]
              : ["pinned", "isolated", "shared"];
        const report = await runWriterImpact({
          rows: options.rows,
          rate: options.rate,
          seconds: options.seconds,
          users: options.users,
          sampleMs: options.sampleMs,
          consoleParallelWorkers: options.consoleParallelWorkers,
          placements,
          keep: options.keep ?? false,
          progress: createProgressBar(),
          log,
        });
        if (options.json) printJson(report);
        else console.log(formatWriterImpactReport(report));
        if (report.lockFailures.length > 0) {
          console.error(
            `idem: LOCK CHECK FAILED — a writer waited on a lock held by a console connection:\n${report.lockFailures.map((w) => `  - ${describeLockWait(w)}`).join("\n")}`,
          );
          return 1;
        }
        return 0;
      }),
    );
}
