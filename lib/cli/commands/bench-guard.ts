import "server-only";
import type { Command } from "commander";
import { wholeNumberOption } from "@/lib/cli/options";
import { measureGuardLatency, type GuardLatencyReport } from "@/tools/bench/guard-latency";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withConnection } from "@/lib/cli/with-database";
import { migrate } from "@/lib/db/migrate";

const REFERENCE_TEXT_CLAIM_MS = 1.8; // the reference writer's claim against same-region Postgres, median (docs/architecture.md#the-reference-writer)

export function registerBenchGuard(program: Command): void {
  program
    .command("bench-guard")
    .description(
      "claim-to-complete latency of the guard beside the reference writer's statements (rows under tenant 'bench', removed after)",
    )
    .option("--iterations <n>", "calls of each kind", wholeNumberOption(10, 1_000_000), 2000)
    .option("--json", "print the report as JSON")
    .action(
      runCommand(async (options: { iterations: number; json?: boolean }) => {
        const report = await withConnection(async (connection) => {
          await migrate(connection.url);
          return measureGuardLatency(connection.url, options.iterations, (done) => {
            if (!options.json && process.stderr.isTTY && done % 100 === 0)
              process.stderr.write(`\r${done}/${options.iterations}`);
          });
        });
        if (process.stderr.isTTY && !options.json) process.stderr.write("\r");
        if (options.json) printJson({ ...report, referenceTextQuotedClaimMs: REFERENCE_TEXT_CLAIM_MS });
        else printReport(report);
      }),
    );
}

function printReport(r: GuardLatencyReport): void {
  const row = (name: string, s: { p50Ms: number; p95Ms: number }, trips: number | string) =>
    console.log(
      `${name.padEnd(44)} ${s.p50Ms.toFixed(3).padStart(8)} ${s.p95Ms.toFixed(3).padStart(8)} ${String(trips).padStart(6)}`,
    );
  console.log(`${r.iterations} calls of each kind, one connection, no side-effect cost\n`);
  console.log(`${"path".padEnd(44)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"trips".padStart(6)}`);
  row("reference writer: claim (INSERT … ON CONFLICT)", r.referenceTextMs.claimOnly, 1);
  row("reference writer: claim → complete", r.referenceTextMs.fresh, r.roundTrips.referenceText.fresh);
  row("guard: claim → complete", r.guardMs.fresh, r.roundTrips.guard.fresh);
  row("reference writer: repeat (INSERT, then SELECT)", r.referenceTextMs.repeat, r.roundTrips.referenceText.repeat);
  row("guard: repeat (claim-or-read, replay event)", r.guardMs.repeat, r.roundTrips.guard.repeat);
  console.log(
    `\nthe reference writer's claim takes ${REFERENCE_TEXT_CLAIM_MS} ms median against Postgres in the same region; here: ${r.textClaimMedianMs.toFixed(3)} ms on local PostgreSQL`,
  );
}
