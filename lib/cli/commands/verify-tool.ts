import "server-only";
import { requiredOption } from "@/lib/cli/required-option";
import { writeFileSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { parse as parseShell } from "shell-quote";
import { VERIFICATION_EXIT_CODES, type ToolVerificationResult } from "@/lib/annotations/tool-verification-types";
import { runToolVerification } from "@/lib/annotations/verify-tool/run-verification";
import {
  DEFAULT_CONCURRENCY,
  MAX_CONCURRENCY,
  MIN_CONCURRENCY,
} from "@/lib/annotations/verify-tool/verification-input";
import type { CommandLineServer } from "@/lib/annotations/verify-tool/verification-target";
import { parseNameOption, parseServerNameOption, wholeNumberOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { childEnvironment } from "@/lib/config/environment";
import { loadCliConfig } from "@/lib/cli/cli-config";
import { verificationJunit } from "@/lib/cli/verification-junit";
import { UserError } from "@/lib/errors/user-error";
import { cliActor } from "@/lib/identity/cli-actor";

/** The name a --stdio server's run is stored under when --server names none. */
const STDIO_DEFAULT_NAME = "stdio";

type Options = {
  server?: string;
  stdio?: CommandLineServer;
  tool: string;
  args: Record<string, unknown>;
  concurrency: number;
  json?: boolean;
  junit?: string;
  databaseUrl?: string;
};

export function registerVerifyTool(program: Command): void {
  program
    .command("verify-tool")
    .description(
      "the double-call test: call a tool at once several times and once more, then check the answers, the table and the upstream",
    )
    .option(
      "--server <name>",
      'a server idem.config.json marks "verify": true (with --stdio: the name to store the run under)',
      parseServerNameOption,
    )
    .option(
      "--stdio <command>",
      "start this command as the MCP server over stdio instead (a server's own CI)",
      parseStdioCommand,
    )
    .addOption(requiredOption("--tool <name>", "the tool to verify", parseNameOption))
    .addOption(requiredOption("--args <json>", "the tool's arguments, a JSON object", parseArgumentsOption))
    .option(
      "--concurrency <n>",
      `calls at once (${MIN_CONCURRENCY}..${MAX_CONCURRENCY})`,
      wholeNumberOption(MIN_CONCURRENCY, MAX_CONCURRENCY),
      DEFAULT_CONCURRENCY,
    )
    .option("--json", "print the stored run as JSON")
    .option("--junit <file>", "also write the run as JUnit XML (one testcase per side: answers, table, upstream)")
    .option("--database-url <url>", "the database the server writes its idempotency table to (default: DATABASE_URL)")
    .addHelpText(
      "after",
      `
A verification makes real side effects (a charge, a shipment). It runs only against a server
idem.config.json marks "verify": true (staging), acts as an admin (the CLI's actor) and is
audited (tool.verify, with the arguments' hash, the verdict and the evidence). A server given by
--stdio is the server's own CI running it against its own test upstreams, so it counts as marked
for verification; it runs with this command's environment. The tool's upstream is asked through
the adapter idem.config.json configures for it (tools.<tool>.processor), when there is one.

To exercise the in-flight branch the first call must still be running when the repeats arrive:
slow the upstream (the demo processor's latencyMs, x-demo-latency-ms). If no repeat is told the
call is in flight, the verdict is inconclusive and says how.

Exit codes: ${VERIFICATION_EXIT_CODES.verified} verified; ${VERIFICATION_EXIT_CODES.failed} failed (or an error: the server could not be reached);
${VERIFICATION_EXIT_CODES.inconclusive} inconclusive; 2 bad input (nothing was called).

  npm run idem -- verify-tool --server staging-shop --tool charge_card --args '{"card":"c_4242","amount_cents":500}'
  npm run idem -- verify-tool --stdio "node dist/server.js" --tool charge_card \\
      --args '{"card":"c_4242","amount_cents":500}' --database-url "$DATABASE_URL" --junit report.xml`,
    )
    .action(runCommand((options: Options) => runVerifyTool(options)));
}

async function runVerifyTool(options: Options): Promise<number> {
  if (!options.server && !options.stdio)
    throw new UserError(
      'name a server (--server NAME, marked "verify": true in idem.config.json) or give --stdio COMMAND.',
    );
  const { config } = loadCliConfig();
  const server = options.server ?? STDIO_DEFAULT_NAME;
  const commandLine = options.stdio ? { ...options.stdio, env: definedOnly(childEnvironment({})) } : undefined;
  const outcome = await withDatabase(
    (db) =>
      runToolVerification(
        cliActor(),
        { server, tool: options.tool, arguments: options.args, concurrency: options.concurrency },
        { db, config, ...(commandLine ? { commandLine } : {}) },
      ),
    options.databaseUrl,
  );
  if (!outcome.ok) throw new UserError(outcome.message, outcome.code === "unavailable" ? 1 : 2);
  const verification = outcome.verification;
  if (options.junit) writeFileSync(options.junit, verificationJunit(verification));
  if (options.json) printJson({ ...verification, auditId: outcome.auditId });
  else printVerification(verification, outcome.auditId);
  return VERIFICATION_EXIT_CODES[verification.verdict];
}

const MARK = { passed: "ok  ", failed: "FAIL", inconclusive: "??  ", skipped: "--  " } as const;

function printVerification(v: ToolVerificationResult, auditId: string): void {
  console.log(`${v.server}/${v.tool}: ${v.verdict.toUpperCase()}${v.step ? ` at ${v.step}` : ""} — ${v.summary}`);
  for (const check of v.evidence.checks) console.log(`  ${MARK[check.result]} ${check.step.padEnd(8)} ${check.detail}`);
  for (const [i, call] of v.evidence.calls.entries())
    console.log(
      `       call ${i + 1} (${call.phase}, keys ${call.keyOrder.join(",") || "none"}): ${call.outcome}${call.ref ? ` ref ${call.ref}` : ""} in ${call.ms} ms`,
    );
  if (v.evidence.hint) console.log(`  hint: ${v.evidence.hint}`);
  console.log(
    `  stored as verification ${v.id} (audit entry ${auditId}, tool.verify); arguments sha256 ${v.argumentsHash.slice(0, 12)}…`,
  );
}

function parseArgumentsOption(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not JSON (${(error as Error).message}).`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError(`expected a JSON object, e.g. '{"card":"c_4242","amount_cents":500}'.`);
  return parsed as Record<string, unknown>;
}

/** Split as a shell would (quotes, $VARS from this environment); pipes, && and redirections belong in a script. */
function parseStdioCommand(value: string): CommandLineServer {
  const words = parseShell(value, (name) => childEnvironment({})[name] ?? "");
  if (words.some((w) => typeof w !== "string"))
    throw new InvalidArgumentError(
      "a plain command and its arguments only (no pipes, &&, redirections or globs): put those in a script.",
    );
  const [command, ...args] = words as string[];
  if (!command) throw new InvalidArgumentError('expected a command, e.g. "node dist/server.js".');
  return { command, args };
}

function definedOnly(environment: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
