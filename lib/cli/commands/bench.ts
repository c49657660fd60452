import type { Command } from "commander";
import { formatBenchReport } from "@/tools/bench/bench-report";
import { runBench } from "@/tools/bench/run-bench";
import { wholeNumberOption } from "@/lib/cli/options";
import { createProgressBar } from "@/lib/terminal/progress";
import { printJson, runCommand } from "@/lib/cli/run-command";

export function registerBench(program: Command): void {
  program
    .command("bench")
    .description(
      "load a fresh database (idem_bench_<time>, on DATABASE_URL's server) and time each console operation side by side: its SQL and its API on the production build; exit 1 when a plan scans or sorts a big table",
    )
    .option("--rows <n>", "claims to load (10000000 for the full run)", wholeNumberOption(1_000, 100_000_000), 200_000)
    .option("--iterations <n>", "timed runs per side and case", wholeNumberOption(5, 100_000), 200)
    .option("--keep", "keep the bench database afterwards")
    .option("--json", "print {rows, results: [{name, sqlP50Ms, sqlP95Ms, apiP50Ms, apiP95Ms, ratio, plan}], …} as JSON")
    .action(
      runCommand(async (options: { rows: number; iterations: number; keep?: boolean; json?: boolean }) => {
        const log = (line: string) => {
          if (process.stderr.isTTY || !options.json) process.stderr.write(`${line}\n`);
        };
        const report = await runBench({
          rows: options.rows,
          iterations: options.iterations,
          keep: options.keep ?? false,
          progress: createProgressBar(),
          log,
        });
        if (options.json) printJson(report);
        else console.log(formatBenchReport(report));
        if (report.planProblems.length > 0) {
          console.error(
            `idem: PLAN CHECK FAILED — ${report.planProblems.length} plan(s) scan or sort a big table:\n${report.planProblems.map((p) => `  - ${p}`).join("\n")}`,
          );
          return 1;
        }
        return 0;
      }),
    );
}
