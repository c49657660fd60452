import { describeDeadRun } from "@/lib/audit/job-runs";
import "server-only";
import type { Command } from "commander";
import { parseDurationOption, parseNameOption, wholeNumberOption } from "@/lib/cli/options";
import { createProgressBar } from "@/lib/terminal/progress";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withConnection } from "@/lib/cli/with-database";
import { formatDuration } from "@/lib/config/duration";
import { loadCliConfig } from "@/lib/cli/cli-config";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { createPrismaClient } from "@/lib/db/prisma";
import { UserError } from "@/lib/errors/user-error";
import { formatAge } from "@/lib/format/relative-time";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import {
  DEFAULT_RECONCILE_CONCURRENCY,
  DEFAULT_RECONCILE_LIMIT,
  RECONCILER_ACTOR,
  reconcile,
  type ReconcileResult,
} from "@/lib/resolve/reconcile";

/** Exit code when the run worked but claims stay unresolved (unknown outcome, conflicts): cron should notice. */
export const EXIT_UNRESOLVED = 3;
const MAX_CONCURRENCY = 32;
const MAX_LIMIT = 100_000;

type Options = {
  olderThan?: number;
  tool?: string;
  tenant?: string;
  limit: number;
  concurrency: number;
  dryRun?: boolean;
  json?: boolean;
};

export function registerReconcile(program: Command): void {
  program
    .command("reconcile")
    .description(
      "ask the processor about stuck in_progress claims and complete (taken) or release (not taken) them; for cron",
    )
    .option(
      "--older-than <duration>",
      "claims older than this (default: each tool's stuckAfter threshold)",
      parseDurationOption,
    )
    .option("--tool <name>", "only this tool's claims", parseNameOption)
    .option("--tenant <tenant>", "only this tenant's claims", parseNameOption)
    .option(
      "--limit <n>",
      "at most this many claims, oldest first",
      wholeNumberOption(1, MAX_LIMIT),
      DEFAULT_RECONCILE_LIMIT,
    )
    .option(
      "--concurrency <n>",
      "processor questions in flight at once",
      wholeNumberOption(1, MAX_CONCURRENCY),
      DEFAULT_RECONCILE_CONCURRENCY,
    )
    .option("--dry-run", "ask and report what would be done; change nothing")
    .option("--json", "print the full result as JSON")
    .addHelpText(
      "after",
      `
Each claim is locked (SELECT … FOR UPDATE SKIP LOCKED) while its processor is asked, so two
reconcilers never act on the same row; claims held by someone else are waited for afterwards
(bounded), so none is missed. Changes are audited as actor system:reconciler.

Exit codes: 0 nothing stays unresolved; ${EXIT_UNRESOLVED} some claims stay in_progress (the processor's
answer was unknown, or a conflict); 1 an error; 2 bad input.`,
    )
    .action(runCommand((options: Options) => runReconcile(options)));
}

async function runReconcile(options: Options): Promise<number> {
  const { config } = loadCliConfig();
  return withConnection(async (connection) => {
    // Each worker holds a connection for the length of a processor call; one more for the candidate query.
    const db = createPrismaClient(connection.url, options.concurrency + 1);
    try {
      await db.$queryRaw`SELECT 1`.catch((error: unknown) => {
        throw new UserError(describeDatabaseError(error, connection.url), 1);
      });
      // A misspelt tenant in a cron line would otherwise report "0 candidates" every run, as a fact.
      const tenant = await checkTenantFilter(db, RECONCILER_ACTOR, options.tenant ?? null);
      if (!tenant.ok) throw new UserError(`--tenant: ${tenant.message}`);
      const bar = createProgressBar({ enabled: !options.json });
      const counts = { completed: 0, released: 0, left: 0, conflict: 0 };
      const result = await reconcile(db, config, {
        olderThanMs: options.olderThan ?? null,
        tool: options.tool ?? null,
        tenant: options.tenant ?? null,
        limit: options.limit,
        concurrency: options.concurrency,
        dryRun: options.dryRun === true,
        // On stderr, so --json output stays one JSON document.
        onPreviousRun: (run) => console.error(`idem reconcile: ${describeDeadRun(run, new Date())}`),
        onCandidates: (total) => bar.start(total, options.dryRun ? "reconcile (dry run)" : "reconcile"),
        onRow: (row, done) => {
          counts[row.action] += 1;
          bar.update(
            done,
            `completed ${counts.completed} · released ${counts.released} · left ${counts.left}${counts.conflict ? ` · conflicts ${counts.conflict}` : ""}`,
          );
        },
      });
      bar.stop();
      if (options.json) printJson(result);
      else printSummary(result);
      if (result.totals.errors > 0) return 1;
      return result.unresolved > 0 ? EXIT_UNRESOLVED : 0;
    } finally {
      await db.$disconnect();
    }
  });
}

const VERB = { completed: "completed", released: "released", left: "left in_progress", conflict: "conflict" } as const;
const PLANNED = {
  completed: "would complete",
  released: "would release",
  left: "would leave",
  conflict: "conflict",
} as const;

function printSummary(result: ReconcileResult): void {
  const { criteria } = result;
  const age =
    criteria.olderThanMs === null
      ? "older than each tool's stuckAfter"
      : `older than ${formatDuration(criteria.olderThanMs)}`;
  const filters = [criteria.tool ? `tool ${criteria.tool}` : "", criteria.tenant ? `tenant ${criteria.tenant}` : ""]
    .filter(Boolean)
    .join(", ");
  console.log(
    `${result.dryRun ? "dry run: " : ""}${result.candidates} in_progress claim${result.candidates === 1 ? "" : "s"} ${age}${filters ? ` (${filters})` : ""}, limit ${criteria.limit}, concurrency ${criteria.concurrency}`,
  );
  const now = new Date(result.startedAt);
  for (const row of result.rows) {
    const verb = result.dryRun ? PLANNED[row.action] : VERB[row.action];
    const age = formatAge(new Date(now.getTime() - row.ageMs), now);
    console.log(
      `  ${row.ref}  ${row.tenant}  ${row.tool ?? "(unrecorded)"}  ${age} old  ${row.outcome} → ${verb}: ${row.reason}`,
    );
  }
  const t = result.totals;
  const parts = [`completed ${t.completed}`, `released ${t.released}`, `left ${t.left}`, `conflicts ${t.conflict}`];
  if (t.skipped) parts.push(`skipped ${t.skipped} (taken by another reconciler or resolved meanwhile)`);
  if (t.errors) parts.push(`errors ${t.errors}`);
  const tail =
    result.unresolved > 0
      ? `${result.unresolved} ${result.dryRun ? "would stay" : "stay"} unresolved`
      : "nothing stays unresolved";
  console.log(
    `${result.dryRun ? "would have: " : ""}${parts.join(", ")}; ${tail} (${(result.durationMs / 1000).toFixed(1)} s)`,
  );
}
