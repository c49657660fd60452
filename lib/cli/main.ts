import { Command, CommanderError } from "commander";
import { checkRequiredOptions } from "@/lib/cli/required-option";

const program = new Command("idem")
  .description("Idem Console: the idempotency table of your MCP tool servers")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride()
  .hook("preAction", checkRequiredOptions);

// Each command's module is loaded only when that command runs: `idem key` need not load Prisma,
// the bench or the demo world (a third of the start-up time; the CLI tests spawn it often).
type Register = (program: Command) => void;
const COMMANDS: Array<[name: string[], load: () => Promise<Register>]> = [
  [["migrate"], async () => (await import("@/lib/cli/commands/migrate")).registerMigrate],
  [["db"], async () => (await import("@/lib/cli/commands/db")).registerDb],
  [["token"], async () => (await import("@/lib/cli/commands/token")).registerToken],
  [["user"], async () => (await import("@/lib/cli/commands/user")).registerUser],
  [["key"], async () => (await import("@/lib/cli/commands/key")).registerKey],
  [["serve", "demo"], async () => (await import("@/lib/cli/commands/serve")).registerServe],
  [["seed-demo"], async () => (await import("@/lib/cli/commands/seed-demo")).registerSeedDemo],
  [["bench"], async () => (await import("@/lib/cli/commands/bench")).registerBench],
  [["bench-guard"], async () => (await import("@/lib/cli/commands/bench-guard")).registerBenchGuard],
  [["bench-audit"], async () => (await import("@/lib/cli/commands/bench-audit")).registerBenchAudit],
  [["bench-writers"], async () => (await import("@/lib/cli/commands/bench-writers")).registerBenchWriters],
  [["soak"], async () => (await import("@/lib/cli/commands/soak")).registerSoak],
  [["reconcile"], async () => (await import("@/lib/cli/commands/reconcile")).registerReconcile],
  [["audit"], async () => (await import("@/lib/cli/commands/audit")).registerAudit],
  [["trim"], async () => (await import("@/lib/cli/commands/trim")).registerTrim],
  [["jobs"], async () => (await import("@/lib/cli/commands/jobs")).registerJobs],
  [["allow-repeat"], async () => (await import("@/lib/cli/commands/allow-repeat")).registerAllowRepeat],
  [["rollup"], async () => (await import("@/lib/cli/commands/rollup")).registerRollup],
  [["verify-tool"], async () => (await import("@/lib/cli/commands/verify-tool")).registerVerifyTool],
];

// A known command word loads its module alone; anything else (help, a misspelt command) loads them all,
// in this order, so help lists every command and commander can suggest the one meant.
const word = process.argv[2];
const named = COMMANDS.filter(([names]) => word !== undefined && names.includes(word));
for (const [, load] of named.length > 0 ? named : COMMANDS) (await load())(program);

// `idem … | head`: the reader went away. Stop quietly, as a Unix tool does, not with a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Usage errors (unknown command, missing or invalid option) exit 2; --help and --version exit 0.
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    throw error;
  }
}
