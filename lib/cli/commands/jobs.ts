import { Option, type Command } from "commander";
import { JOB_NAMES, listJobRuns, type JobName, type JobRunListing } from "@/lib/audit/job-runs";
import { wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";

type Options = { job?: JobName; limit: number; json?: boolean };

export function registerJobs(program: Command): void {
  program
    .command("jobs")
    .description("the newest trim and reconcile runs: finished, failed, running, or did not finish (heartbeat stopped)")
    .addOption(new Option("--job <name>", "only this job").choices([...JOB_NAMES]))
    .option("--limit <n>", "how many runs, newest first", wholeNumberOption(1, 500), 20)
    .option("--json", "print the runs as JSON")
    .action(
      runCommand(async (options: Options) => {
        const now = new Date();
        const runs = await withDatabase((db) => listJobRuns(db, { job: options.job, limit: options.limit }, now));
        if (options.json) return printJson(runs);
        if (runs.length === 0) return console.log("no runs recorded");
        for (const run of runs) console.log(describeListing(run));
      }),
    );
}

function describeListing(run: JobRunListing): string {
  const did =
    run.job === "trim"
      ? `deleted ${run.deleted ?? 0}, kept ${run.kept ?? 0} in progress`
      : `completed ${run.completed ?? 0}, released ${run.released ?? 0}, left ${run.leftUnknown ?? 0} of ${run.candidates ?? 0}`;
  const state =
    run.state === "failed"
      ? `failed: ${run.error}`
      : run.state === "did not finish"
        ? `did not finish (last heartbeat ${run.heartbeatAt.toISOString()})`
        : run.state;
  const dry = run.dryRun ? " (dry run)" : "";
  return `${run.startedAt.toISOString()}  ${run.job.padEnd(9)}  ${state}${dry}  ${run.actor}  ${did}`;
}
