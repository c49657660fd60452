import "server-only";
import type { Command } from "commander";
import { formatSoakReport } from "@/tools/bench/soak/soak-report";
import { runSoak } from "@/tools/bench/soak/run-soak";
import { parseDurationOption, wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";

type Options = {
  minutes: number;
  restartEvery: number;
  hangEvery: number;
  hangFor: number;
  users: number;
  rows: number;
  sampleEvery: number;
  json?: boolean;
};

export function registerSoak(program: Command): void {
  program
    .command("soak")
    .description(
      "a soak run: the production console on a PostgreSQL cluster of its own (initdb on a free port, removed afterwards), under mixed API and page load, the database restarted every --restart-every and the processor hanging every --hang-every; exit 1 on any 5xx other than the documented 503s, HTML on /api, memory or connections that grow, or an invariant broken at the end",
    )
    .option("--minutes <n>", "how long the load runs", wholeNumberOption(1, 24 * 60), 30)
    .option(
      "--restart-every <duration>",
      "restart PostgreSQL this often (pg_ctl restart -m fast; once -m immediate)",
      parseDurationOption,
      5 * 60_000,
    )
    .option("--hang-every <duration>", "make the processor hang this often", parseDurationOption, 10 * 60_000)
    .option(
      "--hang-for <duration>",
      "how long each hang lasts (at most half of --hang-every)",
      parseDurationOption,
      60_000,
    )
    .option("--users <n>", "concurrent users (API tokens and page sessions)", wholeNumberOption(1, 256), 8)
    .option("--rows <n>", "claims to seed before the load", wholeNumberOption(1_000, 10_000_000), 20_000)
    .option("--sample-every <duration>", "one line of the table this often", parseDurationOption, 10_000)
    .option("--json", "print the report as JSON")
    .action(
      runCommand(async (options: Options) => {
        // Progress goes to stderr: stdout holds only the report (JSON with --json).
        const log = (line: string) => process.stderr.write(`${line}\n`);
        const report = await runSoak({
          minutes: options.minutes,
          restartEveryMs: options.restartEvery,
          hangEveryMs: options.hangEvery,
          hangForMs: Math.min(options.hangFor, options.hangEvery / 2),
          users: options.users,
          rows: options.rows,
          sampleEveryMs: options.sampleEvery,
          log,
        });
        if (options.json) printJson(report);
        else console.log(formatSoakReport(report));
        if (report.failures.length > 0) {
          console.error(`idem: SOAK FAILED:\n${report.failures.map((f) => `  - ${f}`).join("\n")}`);
          return 1;
        }
        return 0;
      }),
    );
}
