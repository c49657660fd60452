import type { Command } from "commander";
import { wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { DEFAULT_VERIFY_BATCH } from "@/lib/audit/verify-audit-chain";
import { runAuditChainBench } from "@/tools/bench/audit-chain-bench";

type Options = { rows: number; batch: number; keep?: boolean; json?: boolean };

export function registerBenchAudit(program: Command): void {
  program
    .command("bench-audit")
    .description(
      "load a fresh database (idem_bench_<time>, on DATABASE_URL's server) with audit rows through the chain trigger, then time `idem audit verify` over all of them; exit 1 if the chain does not verify",
    )
    .option("--rows <n>", "audit rows to load", wholeNumberOption(1_000, 100_000_000), 1_000_000)
    .option("--batch <n>", "rows the verifier reads per query", wholeNumberOption(100, 100_000), DEFAULT_VERIFY_BATCH)
    .option("--keep", "keep the bench database afterwards")
    .option(
      "--json",
      "print {rows, loadSeconds, tableBytes, verify: {ok, rows, throughId, seconds}, verifyRowsPerSecond}",
    )
    .action(
      runCommand(async (options: Options) => {
        const report = await runAuditChainBench({
          rows: options.rows,
          batchSize: options.batch,
          keep: options.keep ?? false,
          log: (line) => {
            if (!options.json) process.stderr.write(`${line}\n`);
          },
        });
        if (options.json) printJson(report);
        else {
          const mb = (report.tableBytes / 1024 / 1024).toFixed(0);
          console.log(
            `loaded ${report.rows.toLocaleString("en")} audit rows through the chain trigger in ${report.loadSeconds.toFixed(1)} s (audit_log ${mb} MB with indexes)`,
          );
          console.log(
            `verify: ${report.verify.ok ? "ok" : "BROKEN"}, ${report.verify.rows.toLocaleString("en")} rows in ${report.verify.seconds.toFixed(2)} s (${report.verifyRowsPerSecond.toLocaleString("en")} rows/s, batches of ${options.batch.toLocaleString("en")}; CPU: the verifier ${report.verifyCpuSeconds.toFixed(2)} s, its database backend ${report.verifyDatabaseCpuSeconds === null ? "not measured (another host)" : `${report.verifyDatabaseCpuSeconds.toFixed(2)} s`})`,
          );
        }
        return report.verify.ok ? 0 : 1;
      }),
    );
}
