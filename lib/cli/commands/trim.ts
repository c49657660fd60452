import { Option, type Command } from "commander";
import { describeDeadRun } from "@/lib/audit/job-runs";
import { cliActor } from "@/lib/identity/cli-actor";
import { parseDurationOption, wholeNumberOption } from "@/lib/cli/options";
import { createProgressBar } from "@/lib/terminal/progress";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { formatDuration } from "@/lib/config/duration";
import { RETENTION_MS } from "@/lib/retention/retention-window";
import { DEFAULT_TRIM_BATCH, trim, type TrimPhase, type TrimResult } from "@/lib/retention/trim";

const MAX_BATCH = 100_000;
const PHASE_LABEL: Record<TrimPhase, string> = {
  records: "trim rows",
  unresolved: "trim unresolved",
  events: "trim events",
};

type Options = { olderThan: number; batch: number; dryRun?: boolean; includeUnresolved?: boolean; json?: boolean };

export function registerTrim(program: Command): void {
  program
    .command("trim")
    .description(
      "retention: delete idempotency rows and writer events older than a cutoff, in batches; in_progress claims are kept and reported",
    )
    .addOption(
      new Option("--older-than <duration>", "trim what was created before now minus this")
        .argParser(parseDurationOption)
        // Shown as a duration, as it is typed: "(default: 48h)", not milliseconds.
        .default(RETENTION_MS, formatDuration(RETENTION_MS)),
    )
    .option(
      "--batch <n>",
      "rows per batch (one transaction and one audit row each)",
      wholeNumberOption(1, MAX_BATCH),
      DEFAULT_TRIM_BATCH,
    )
    .option("--dry-run", "count what would be deleted; delete nothing")
    .option(
      "--include-unresolved",
      "also delete in_progress claims older than the cutoff (each one named in the audit log)",
    )
    .option("--json", "print the full result as JSON")
    .addHelpText(
      "after",
      `
in_progress rows are claims whose outcome was never recorded: trim keeps them and says how many
(run \`idem reconcile\` first) unless --include-unresolved. The audit log is never trimmed.`,
    )
    .action(
      runCommand(async (options: Options) => {
        const bar = createProgressBar({ enabled: !options.json });
        let phase: TrimPhase | null = null;
        const result = await withDatabase((db) =>
          trim(db, {
            olderThanMs: options.olderThan,
            batchSize: options.batch,
            dryRun: options.dryRun === true,
            includeUnresolved: options.includeUnresolved === true,
            actor: cliActor(),
            // On stderr, so --json output stays one JSON document.
            onPreviousRun: (run) => console.error(`idem trim: ${describeDeadRun(run, new Date())}`),
            onProgress: (p) => {
              if (p.phase !== phase) {
                phase = p.phase;
                bar.start(p.total, PHASE_LABEL[p.phase]);
              }
              bar.update(p.done);
            },
          }),
        );
        bar.stop();
        if (options.json) printJson(result);
        else printSummary(result);
      }),
    );
}

function printSummary(r: TrimResult): void {
  const head = `${r.dryRun ? "dry run: " : ""}cutoff ${r.cutoff} (older than ${formatDuration(r.olderThanMs)})`;
  console.log(head);
  const statuses = Object.entries(r.records.deletedByStatus)
    .map(([s, n]) => `${s} ${n}`)
    .join(", ");
  if (r.dryRun) {
    console.log(`rows:       would delete ${r.records.planned} (not in_progress)`);
    if (r.includeUnresolved) console.log(`unresolved: would delete ${r.unresolved.planned} in_progress claims`);
    console.log(`events:     would delete ${r.events.planned} writer events`);
  } else {
    console.log(
      `rows:       deleted ${r.records.deleted}${statuses ? ` (${statuses})` : ""} in ${r.records.batches} batch${r.records.batches === 1 ? "" : "es"}`,
    );
    if (r.includeUnresolved) {
      console.log(
        `unresolved: deleted ${r.unresolved.deleted} in_progress claims in ${r.unresolved.batches} batch${r.unresolved.batches === 1 ? "" : "es"} (named in the audit log)`,
      );
      for (const c of r.unresolved.deletedClaims.slice(0, 20))
        console.log(`  deleted ${c.key}  ${c.tenant}  ${c.tool ?? "(unrecorded)"}  created ${c.createdAt}`);
      if (r.unresolved.deletedClaims.length > 20)
        console.log(`  … and ${r.unresolved.deletedClaims.length - 20} more (--json lists them all)`);
    }
    console.log(
      `events:     deleted ${r.events.deleted} writer events older than the cutoff in ${r.events.batches} batch${r.events.batches === 1 ? "" : "es"} (they would outlive their rows otherwise)`,
    );
  }
  if (r.unresolved.kept > 0) {
    console.log(
      `kept:       ${r.unresolved.kept} in_progress claim${r.unresolved.kept === 1 ? "" : "s"} older than the cutoff, oldest created ${r.unresolved.oldestKept}; run \`idem reconcile\`, or trim --include-unresolved`,
    );
    for (const c of r.unresolved.keptSample)
      console.log(`  kept ${c.ref}  ${c.tenant}  ${c.tool ?? "(unrecorded)"}  created ${c.createdAt}`);
  } else {
    console.log("kept:       no in_progress claims older than the cutoff");
  }
  console.log(
    `${r.dryRun ? "nothing was deleted" : `${r.auditIds.length} audit row${r.auditIds.length === 1 ? "" : "s"} written`} (${(r.durationMs / 1000).toFixed(1)} s)`,
  );
}
