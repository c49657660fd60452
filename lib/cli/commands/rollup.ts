import type { Command } from "commander";
import { wholeNumberOption } from "@/lib/cli/commands/reconcile";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { CATCH_UP_HOURS, rollUpClosedHours } from "@/lib/metrics/rollup";

type Options = { catchUp: number; json?: boolean };

export function registerRollup(program: Command): void {
  program
    .command("rollup")
    .description("roll up closed hours into the duplicate-suppression metrics (each hour once; run it from cron, e.g. every 5 minutes)")
    .option("--catch-up <hours>", "how many hours back to look for hours not rolled up yet", wholeNumberOption(1, 24 * 30), CATCH_UP_HOURS)
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
The metrics page and API roll up on demand too; this keeps their first request fast. Running it
twice, or beside a request, is safe: each hour is rolled up once, under an advisory lock.`,
    )
    .action(
      runCommand(async (options: Options) => {
        const result = await withDatabase((db) => rollUpClosedHours(db, new Date(), { catchUpHours: options.catchUp }));
        if (options.json) printJson(result);
        else {
          const span = result.rolledUp.length > 0 ? ` (${result.rolledUp[0]} … ${result.rolledUp.at(-1)})` : "";
          console.log(`rolled up ${result.rolledUp.length} hour${result.rolledUp.length === 1 ? "" : "s"}${span} in ${result.durationMs} ms; closed through the hour starting ${result.closedThrough}`);
        }
      }),
    );
}
