import { Command, CommanderError } from "commander";
import { registerAllowRepeat } from "@/lib/cli/commands/allow-repeat";
import { registerBench } from "@/lib/cli/commands/bench";
import { registerBenchGuard } from "@/lib/cli/commands/bench-guard";
import { registerBenchWriters } from "@/lib/cli/commands/bench-writers";
import { registerDb } from "@/lib/cli/commands/db";
import { registerKey } from "@/lib/cli/commands/key";
import { registerMigrate } from "@/lib/cli/commands/migrate";
import { registerReconcile } from "@/lib/cli/commands/reconcile";
import { registerRollup } from "@/lib/cli/commands/rollup";
import { registerSeedDemo } from "@/lib/cli/commands/seed-demo";
import { registerServe } from "@/lib/cli/commands/serve";
import { registerToken } from "@/lib/cli/commands/token";
import { registerTrim } from "@/lib/cli/commands/trim";
import { registerUser } from "@/lib/cli/commands/user";
import { registerVerifyTool } from "@/lib/cli/commands/verify-tool";
import { checkRequiredOptions } from "@/lib/cli/required-option";

const program = new Command("idem")
  .description("Idem Console: the idempotency table of your MCP tool servers")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride()
  .hook("preAction", checkRequiredOptions);

registerMigrate(program);
registerDb(program);
registerToken(program);
registerUser(program);
registerKey(program);
registerServe(program);
registerSeedDemo(program);
registerBench(program);
registerBenchGuard(program);
registerBenchWriters(program);
registerReconcile(program);
registerTrim(program);
registerAllowRepeat(program);
registerRollup(program);
registerVerifyTool(program);

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
