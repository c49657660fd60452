import type { Command } from "commander";
import { requiredOption } from "@/lib/cli/required-option";
import { cliActor } from "@/lib/identity/cli-actor";
import { parseRoleOption, parseTenantOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { disableUser, listUsers, saveUser } from "@/lib/auth/users";
import type { Role } from "@/lib/identity/roles";

export function registerUser(program: Command): void {
  const user = program.command("user").description("console users: who may sign in, with which role and tenants");

  user
    .command("add")
    .description("add a user, or change an existing one's role and tenants")
    .addOption(requiredOption("--email <email>", "the email the identity provider reports"))
    .addOption(requiredOption("--role <role>", "viewer, operator or admin", parseRoleOption))
    .option("--name <name>", "display name")
    .option("--tenant <tenant>", "limit the user to a tenant (repeat for more)", parseTenantOption, [] as string[])
    .option("--json", "print JSON")
    .action(
      runCommand(async (options: { email: string; role: Role; name?: string; tenant: string[]; json?: boolean }) => {
        const saved = await withDatabase((db) =>
          saveUser(db, cliActor(), {
            email: options.email,
            role: options.role,
            name: options.name,
            tenants: options.tenant,
          }),
        );
        if (options.json) printJson(saved);
        else
          console.log(
            `${saved.email}: ${saved.role}, ${saved.tenants.length ? saved.tenants.join(", ") : "all tenants"}`,
          );
      }),
    );

  user
    .command("list")
    .description("list users")
    .option("--json", "print JSON")
    .action(
      runCommand(async (options: { json?: boolean }) => {
        const users = await withDatabase((db) => listUsers(db));
        if (options.json) return void printJson(users);
        for (const u of users) {
          console.log(
            `${u.email}  ${u.role}  ${u.tenants.length ? u.tenants.join(",") : "all tenants"}${u.disabledAt ? "  disabled" : ""}`,
          );
        }
      }),
    );

  user
    .command("disable <email>")
    .description("disable a user; their session ends on its next request")
    .option("--json", "print JSON")
    .action(
      runCommand(async (email: string, options: { json?: boolean }) => {
        const disabled = await withDatabase((db) => disableUser(db, cliActor(), email));
        if (options.json) printJson(disabled);
        else console.log(`disabled ${disabled.email}`);
      }),
    );
}
