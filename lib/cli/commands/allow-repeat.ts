import "server-only";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { requiredOption } from "@/lib/cli/required-option";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import type { Db } from "@/lib/db/prisma";
import { UserError } from "@/lib/errors/user-error";
import { cliActor } from "@/lib/identity/cli-actor";
import { parseKeyParam } from "@/lib/records/record-detail";
import { readRowVersion } from "@/lib/records/visible-records";
import { allowRepeat, allowRepeatInputSchema } from "@/lib/resolve/allow-repeat";
import { repeatConsequence } from "@/lib/resolve/allow-repeat-words";

type Options = { reason: string; yes?: boolean; json?: boolean };

export function registerAllowRepeat(program: Command): void {
  program
    .command("allow-repeat")
    .description("end a completed record's deduplication: the next identical call runs (and charges) again")
    .argument("<key-or-ref>", "the record's key, or its 12-hex ref when only one record has it")
    .addOption(requiredOption("--reason <text>", "why, for the audit log"))
    .option("--yes", "do not ask: the next identical call will run the tool again")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
The row is deleted with its snapshot in the audit log (record.allow_repeat), as a release does,
against the version read just before; audited as actor system:cli (<your user>).

Exit codes: 0 done; 1 conflict or an error; 2 bad input, not completed, or not confirmed.`,
    )
    .action(runCommand((keyOrRef: string, options: Options) => runAllowRepeat(keyOrRef, options)));
}

async function runAllowRepeat(keyOrRef: string, options: Options): Promise<number> {
  const param = parseKeyParam(keyOrRef);
  if (param.kind === "invalid") throw new UserError(`<key-or-ref>: ${param.message}`);
  const reason = allowRepeatInputSchema.shape.reason.safeParse(options.reason);
  if (!reason.success) throw new UserError(`--reason: ${reason.error.issues[0]?.message ?? "invalid"}`);
  const actor = cliActor();
  return withDatabase(async (db) => {
    const key = param.kind === "key" ? param.key : await keyOfRef(db, param.ref);
    const row = await db.idempotency.findUnique({ where: { key } });
    if (!row) throw new UserError(`<key-or-ref>: no record ${keyOrRef}`);
    if (row.status !== "completed")
      throw new UserError(`<key-or-ref>: ${key.slice(0, 12)} is ${row.status}, not completed; nothing was changed`);
    const consequence = repeatConsequence(row.tool);
    if (!options.yes)
      await confirm(`${key.slice(0, 12)} (${row.tool ?? "unrecorded tool"}, tenant ${row.tenant}): ${consequence}.`);
    const version = await readRowVersion(db, actor, key);
    const outcome = await allowRepeat(db, actor, key, { reason: reason.data, expectedUpdatedAt: version });
    if (!outcome.ok) throw new UserError(outcome.message, outcome.code === "conflict" ? 1 : 2);
    if (options.json) printJson({ before: outcome.before, auditId: outcome.auditId });
    else console.log(`repeat allowed for ${key}: the row is deleted; ${consequence} (audit entry #${outcome.auditId})`);
    return 0;
  });
}

/** A ref names a record when exactly one row's key starts with it. */
async function keyOfRef(db: Db, ref: string): Promise<string> {
  const rows = await db.idempotency.findMany({ where: { key: { startsWith: ref } }, select: { key: true }, take: 5 });
  if (rows.length === 0) throw new UserError(`<key-or-ref>: no record with ref ${ref}`);
  if (rows.length > 1)
    throw new UserError(
      `<key-or-ref>: ref ${ref} names ${rows.length > 4 ? "5 or more" : rows.length} records; give the key`,
    );
  return rows[0]!.key;
}

/** Asks on a terminal; without one, --yes is the only confirmation. */
async function confirm(what: string): Promise<void> {
  if (!process.stdin.isTTY) throw new UserError(`--yes: ${what} Confirm with --yes (no terminal to ask on).`);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`${what} Type yes to allow it: `);
    if (answer.trim().toLowerCase() !== "yes") throw new UserError("not confirmed; nothing was changed");
  } finally {
    rl.close();
  }
}
