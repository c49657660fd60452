import "server-only";
import { requiredOption } from "@/lib/cli/required-option";
import type { Command } from "commander";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withConnection } from "@/lib/cli/with-database";
import { grantConsoleRole } from "@/lib/db/console-role";
import { namedVariable } from "@/lib/config/environment";
import { ownerUrl } from "@/lib/db/connection";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { UserError } from "@/lib/errors/user-error";
import { loadCliConfig } from "@/lib/cli/cli-config";
import { runSearchIndexes } from "@/lib/search/run-search-indexes";

export function registerDb(program: Command): void {
  const db = program.command("db").description("database administration, run as the schema's owner");
  db.command("grant")
    .description(
      "create or update the least-privilege role the console serves as (owns nothing; INSERT/SELECT only on audit_log)",
    )
    .addOption(requiredOption("--role <name>", "the role's name, e.g. idem_console"))
    .option("--password-env <VAR>", "set the role's password from this environment variable")
    .option("--owner-url <url>", "connect as the owner with this URL (default DATABASE_MIGRATE_URL, then DATABASE_URL)")
    .option("--json", "print {role, created, schema, grants} as JSON")
    .action(
      runCommand(async (options: { role: string; passwordEnv?: string; ownerUrl?: string; json?: boolean }) => {
        let password: string | undefined;
        if (options.passwordEnv !== undefined) {
          password = namedVariable(options.passwordEnv);
          if (!password) throw new UserError(`--password-env: ${options.passwordEnv} is not set or empty`);
        }
        const report = await withConnection(async (connection) => {
          const url = ownerUrl(connection, options.ownerUrl);
          return grantConsoleRole(url, { role: options.role, password }).catch((error: unknown) => {
            if (error instanceof UserError) throw error;
            throw new UserError(describeDatabaseError(error, url), 1);
          });
        });
        if (options.json) return printJson(report);
        console.log(`${report.created ? "created" : "updated"} role ${report.role} in schema ${report.schema}:`);
        for (const grant of report.grants) console.log(`  ${grant}`);
        console.log(
          `serve the console as it: DATABASE_URL=postgresql://${report.role}:…@host/db, with DATABASE_MIGRATE_URL naming the owner for migrations`,
        );
      }),
    );
  db.command("index")
    .description(
      "create the expression indexes of the searchable response fields idem.config.json names (tools.<tool>.search), drop those it no longer names; a second run changes nothing",
    )
    .option("--json", "print {created, rebuilt, kept, dropped, concurrently} as JSON")
    .action(
      runCommand(async (options: { json?: boolean }) => {
        const { config } = loadCliConfig();
        const report = await withConnection((connection) =>
          runSearchIndexes(connection, config, options.json ? undefined : (what) => console.log(what)),
        );
        if (options.json) return printJson(report);
        if (report.created.length + report.rebuilt.length + report.dropped.length === 0)
          console.log(`search indexes are up to date (${report.kept.length} configured)`);
      }),
    );
}
