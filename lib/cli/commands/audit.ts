import { InvalidArgumentError, type Command } from "commander";
import { wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { recordChainVerification } from "@/lib/audit/audit-chain-verifications";
import { DEFAULT_VERIFY_BATCH, verifyAuditChain, type ChainVerification } from "@/lib/audit/verify-audit-chain";
import { actorLabel } from "@/lib/audit/write-audit";
import { cliActor } from "@/lib/identity/cli-actor";
import { createProgressBar } from "@/lib/terminal/progress";

type VerifyOptions = { from?: string; batch: number; json?: boolean };

export function registerAudit(program: Command): void {
  const audit = program.command("audit").description("the audit log's hash chain (docs/audit-chain.md)");
  audit
    .command("verify")
    .description(
      "recompute every audit row's hash in chain order; exit 0 with a summary, or 1 naming the first row whose content or link does not match",
    )
    .option("--from <id>", "start at this audit row (its link to the row before it is checked too)", parseRowId)
    .option("--batch <n>", "rows read per query", wholeNumberOption(100, 100_000), DEFAULT_VERIFY_BATCH)
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
Each run is recorded (audit_chain_verification): the Audit page, and the scrape's
idem_audit_chain_ok and idem_audit_chain_verified_timestamp_seconds, report the newest.`,
    )
    .action(
      runCommand(async (options: VerifyOptions) => {
        const bar = createProgressBar({ enabled: !options.json });
        const result = await withDatabase(async (db, connection) => {
          bar.start(0, "verify audit chain");
          const verified = await verifyAuditChain(connection.url, {
            fromId: options.from,
            batchSize: options.batch,
            onProgress: (p) => {
              bar.start(p.total, "verify audit chain");
              bar.update(p.done);
            },
          });
          bar.stop();
          await recordChainVerification(db, verified, actorLabel(cliActor()));
          return verified;
        });
        if (options.json) printJson(result);
        else printSummary(result);
        return result.ok ? 0 : 1;
      }),
    );
}

function parseRowId(value: string): string {
  if (!/^\d{1,19}$/.test(value.trim())) throw new InvalidArgumentError("expected an audit row's id, a whole number.");
  return value.trim();
}

function printSummary(r: ChainVerification): void {
  const seconds = `${r.seconds.toFixed(2)} s`;
  const rows = `${r.rows.toLocaleString("en")} row${r.rows === 1 ? "" : "s"}`;
  if (r.firstBad) {
    const what = r.firstBad.problem === "content" ? "content changed" : "link broken";
    console.error(
      `idem: audit chain broken at row ${r.firstBad.id} (place ${r.firstBad.chainSeq}): ${what}: ${r.firstBad.detail}`,
    );
    console.log(
      `checked ${rows} in ${seconds}; ${r.throughId === null ? "no row matched" : `rows matched through id ${r.throughId}`}`,
    );
    return;
  }
  if (r.throughId === null)
    return console.log(`audit chain verified: no rows${r.fromId ? ` from id ${r.fromId}` : ""}`);
  console.log(
    `audit chain verified: ${rows}${r.fromId ? ` from id ${r.fromId}` : ""} through id ${r.throughId} in ${seconds} (head hash ${r.headHash})`,
  );
}
