import type { Command } from "commander";
import { cliActor } from "@/lib/identity/cli-actor";
import { parseInstantOption, wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { loadCliConfig } from "@/lib/cli/cli-config";
import { scanDuplicates } from "@/lib/duplicates/scan-duplicates";
import { UserError } from "@/lib/errors/user-error";
import { recountMetrics, type RecountOutcome } from "@/lib/metrics/recount";
import { rollUpSettled, type SettledRollupResult } from "@/lib/metrics/roll-up-settled";
import { CATCH_UP_HOURS } from "@/lib/metrics/rollup";

type Options = { catchUp: number; recountFrom?: Date; json?: boolean };

export function registerRollup(program: Command): void {
  program
    .command("rollup")
    .description(
      "roll up closed hours and settled minutes into the duplicate-suppression metrics (each once; every console server also does it in the background)",
    )
    .option(
      "--catch-up <hours>",
      "how many hours back to look for hours not rolled up yet",
      wholeNumberOption(1, 24 * 30),
      CATCH_UP_HOURS,
    )
    .option(
      "--recount-from <when>",
      "after a backfill: discard the figures from this hour on (how long ago, 40h, or a date or date-time with its zone) and count them again (audited)",
      (value: string) => parseInstantOption(value),
    )
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
Every console server rolls up in the background (metrics.rollupEvery, default 15s); run this from
cron when it is "off". Running it twice, or beside a server, is safe: each hour and each minute
slice is rolled up once, under an advisory lock. Minute slices cover the hours not closed yet and
are pruned once their hour is.

A rolled-up hour is frozen: rows written into it later (a restore, a bulk import, a writer whose
clock ran behind) are missing from the figures until --recount-from counts it again. It refuses
hours before the newest \`idem trim\` cutoff, whose rows are gone.`,
    )
    .action(
      runCommand(async (options: Options) => {
        if (options.recountFrom) {
          const from = options.recountFrom;
          const outcome = await withDatabase((db) => recountMetrics(db, cliActor(), from, new Date()));
          const result = recountResult(outcome);
          if (options.json) printJson(result);
          else {
            const { discarded, counted } = result;
            const span = counted.firstHour ? ` (${counted.firstHour} … ${counted.lastHour})` : "";
            console.log(
              `discarded ${discarded.hours} rolled hours and ${discarded.slices} minute slices from ${result.from}; counted ${counted.hours} hour${counted.hours === 1 ? "" : "s"}${span} and ${counted.slices} minute slices again from the base tables in ${counted.durationMs} ms (audit row ${result.auditId})`,
            );
          }
          return;
        }
        const { config } = loadCliConfig();
        const { rollup, duplicates } = await withDatabase(async (db) => {
          const rollup = await rollUpSettled(db, new Date(), { catchUpHours: options.catchUp });
          return { rollup, duplicates: await scanDuplicates(db, config, new Date(), { maxChunks: 2_000 }) };
        });
        if (options.json) printJson({ ...rollup.hours, minutes: rollup.minutes, duplicates });
        else {
          printRollup(rollup);
          console.log(
            duplicates.chunks === 0
              ? "duplicate scan: nothing new to read"
              : `duplicate scan: read claims from ${duplicates.from} to ${duplicates.through}, found ${duplicates.found} duplicate${duplicates.found === 1 ? "" : "s"} that got through`,
          );
        }
      }),
    );
}

function recountResult(outcome: RecountOutcome): Extract<RecountOutcome, { ok: true }> {
  if (outcome.ok) return outcome;
  switch (outcome.reason) {
    case "forbidden":
      throw new UserError("recounting the metrics needs the admin role (metrics:recount)", 1);
    case "in_future":
      throw new UserError(`--recount-from ${outcome.from} is in the future: nothing there to count`);
    case "trimmed":
      throw new UserError(
        `--recount-from ${outcome.from} is before the newest trim's cutoff ${outcome.trimmedBefore}: those rows are gone, and their hours' figures exist only in the roll-up. Recount from ${outcome.earliestFrom} or later; nothing was changed`,
      );
  }
}

function printRollup({ hours, minutes }: SettledRollupResult): void {
  const span = hours.rolledUp.length > 0 ? ` (${hours.rolledUp[0]} … ${hours.rolledUp.at(-1)})` : "";
  console.log(
    `rolled up ${hours.rolledUp.length} hour${hours.rolledUp.length === 1 ? "" : "s"}${span} in ${hours.durationMs} ms; closed through the hour starting ${hours.closedThrough}`,
  );
  console.log(
    `rolled up ${minutes.rolledUp} minute slice${minutes.rolledUp === 1 ? "" : "s"} and pruned ${minutes.pruned} in ${minutes.durationMs} ms`,
  );
}
