import type { Command } from "commander";
import { requiredOption } from "@/lib/cli/required-option";
import { cliActor } from "@/lib/identity/cli-actor";
import { parseRoleOption, parseTenantOption } from "@/lib/cli/options";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withDatabase } from "@/lib/cli/with-database";
import { parseDuration } from "@/lib/config/duration";
import { createToken, listTokens, revokeToken } from "@/lib/auth/tokens";
import { UserError } from "@/lib/errors/user-error";
import { isTokenScope } from "@/lib/auth/permissions";

export function registerToken(program: Command): void {
  const token = program.command("token").description("bearer tokens for the JSON API (only a hash is stored)");

  token
    .command("create")
    .description("create a token and print it once")
    .option("--role <role>", "viewer, operator or admin (a metrics token needs none)", parseRoleOption)
    .option("--scope <scope>", "full (default: what the role allows) or metrics (the Prometheus scrape only)", "full")
    .addOption(requiredOption("--name <name>", "what the token is for, e.g. ci"))
    .option("--tenant <tenant>", "limit the token to a tenant (repeat for more)", parseTenantOption, [] as string[])
    .option("--expires <duration>", "expire after a duration such as 30d or 12h")
    .option("--json", 'print {"token": "..."} as JSON')
    .action(
      runCommand(
        async (options: {
          role?: ReturnType<typeof parseRoleOption>;
          scope: string;
          name: string;
          tenant: string[];
          expires?: string;
          json?: boolean;
        }) => {
          if (!isTokenScope(options.scope))
            throw new UserError(`--scope: expected full or metrics (got ${JSON.stringify(options.scope)})`);
          const scope = options.scope;
          // A metrics token may only scrape, whatever its role: viewer says so plainly.
          const role = options.role ?? (scope === "metrics" ? "viewer" : undefined);
          if (role === undefined) throw new UserError("--role: required (viewer, operator or admin)");
          let expiresAt: Date | null = null;
          if (options.expires !== undefined) {
            const ms = parseDuration(options.expires);
            if (ms === null || ms <= 0)
              throw new UserError(
                `--expires: expected a duration like 30d or 12h (got ${JSON.stringify(options.expires)})`,
              );
            expiresAt = new Date(Date.now() + ms);
          }
          const { token: value, summary } = await withDatabase((db) =>
            createToken(db, cliActor(), { name: options.name, role, scope, tenants: options.tenant, expiresAt }),
          );
          if (options.json) {
            printJson({
              token: value,
              id: summary.id,
              name: summary.name,
              role: summary.role,
              scope: summary.scope,
              tenants: summary.tenants,
              expiresAt: summary.expiresAt,
            });
          } else {
            console.log(value);
            console.error(
              `token ${summary.prefix}… (${summary.name}, ${summary.scope === "metrics" ? "metrics scrape only" : summary.role}) created; it is shown only this once.`,
            );
          }
        },
      ),
    );

  token
    .command("list")
    .description("list tokens (never their values)")
    .option("--json", "print JSON")
    .action(
      runCommand(async (options: { json?: boolean }) => {
        const tokens = await withDatabase((db) => listTokens(db));
        if (options.json) return void printJson(tokens);
        if (tokens.length === 0) return void console.log("no tokens");
        for (const t of tokens) {
          const state = t.revokedAt ? "revoked" : t.expiresAt && t.expiresAt <= new Date() ? "expired" : "active";
          const tenants = t.tenants.length ? t.tenants.join(",") : "all tenants";
          console.log(
            `${t.id}  ${t.prefix}…  ${t.name}  ${t.scope === "metrics" ? "metrics-only" : t.role}  ${tenants}  ${state}  last used ${t.lastUsedAt?.toISOString() ?? "never"}`,
          );
        }
      }),
    );

  token
    .command("revoke <token>")
    .description("revoke a token by id, prefix or name; takes effect on the next request")
    .option("--json", "print JSON")
    .action(
      runCommand(async (idOrPrefix: string, options: { json?: boolean }) => {
        const revoked = await withDatabase((db) => revokeToken(db, cliActor(), idOrPrefix));
        if (options.json) printJson(revoked);
        else console.log(`revoked ${revoked.prefix}… (${revoked.name})`);
      }),
    );
}
