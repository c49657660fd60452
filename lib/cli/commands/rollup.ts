import type { Command } from "commander";
import { wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { CATCH_UP_HOURS } from "@/lib/metrics/rollup";

type Options = { catchUp: number; json?: boolean };

export function registerRollup(program: Command): void {
  program
    .command("rollup")
    .description(
      "roll up closed hours and settled minutes into the duplicate-suppression metrics (each once; run it from cron, e.g. every minute)",
    )
    .option(
      "--catch-up <hours>",
      "how many hours back to look for hours not rolled up yet",
      wholeNumberOption(1, 24 * 30),
      CATCH_UP_HOURS,
    )
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
The metrics page and API roll up on demand too; this keeps their first request fast. Running it
twice, or beside a request, is safe: each hour and each minute slice is rolled up once, under an
advisory lock. Minute slices cover the hours not closed yet and are pruned once their hour is.`,
    )
    .action(
      runCommand(async (options: Options) => {
        const { hours, minutes } = await withDatabase((db) =>
          rollUpSettled(db, new Date(), { catchUpHours: options.catchUp }),
        );
        if (options.json) printJson({ ...hours, minutes });
        else {
          const span = hours.rolledUp.length > 0 ? ` (${hours.rolledUp[0]} … ${hours.rolledUp.at(-1)})` : "";
          console.log(
            `rolled up ${hours.rolledUp.length} hour${hours.rolledUp.length === 1 ? "" : "s"}${span} in ${hours.durationMs} ms; closed through the hour starting ${hours.closedThrough}`,
          );
          console.log(
            `rolled up ${minutes.rolledUp} minute slice${minutes.rolledUp === 1 ? "" : "s"} and pruned ${minutes.pruned} in ${minutes.durationMs} ms`,
          );
        }
      }),
    );
}
