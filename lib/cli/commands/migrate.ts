import "server-only";
import type { Command } from "commander";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withConnection } from "@/lib/cli/with-database";
import { ownerUrl } from "@/lib/db/connection";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { migrate } from "@/lib/db/migrate";
import { UserError } from "@/lib/errors/user-error";

export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply the SQL migrations in prisma/migrations; a second run changes nothing")
    .option("--json", "print {applied, alreadyApplied} as JSON")
    .action(
      runCommand(async (options: { json?: boolean }) => {
        // As the owner: DATABASE_MIGRATE_URL when the console serves as a least-privilege role.
        const report = await withConnection((connection) =>
          migrate(ownerUrl(connection), {
            onApplied: (name, ms) => {
              if (!options.json) console.log(`applied ${name} (${ms} ms)`);
            },
          }).catch((error: unknown) => {
            if (error instanceof UserError) throw error;
            throw new UserError(describeDatabaseError(error, ownerUrl(connection)), 1);
          }),
        );
        if (options.json) printJson(report);
        else if (report.applied.length === 0)
          console.log(`database is up to date (${report.alreadyApplied.length} migrations applied earlier)`);
      }),
    );
}
