import "server-only";
import { assertDemoModeAllowed } from "@/lib/auth/demo-mode";
import { configuredSignInOptions } from "@/lib/auth/sign-in-options";
import { env } from "@/lib/config/environment";
import { loadConfig } from "@/lib/config/load";
import { resolveExistingDatabaseUrl } from "@/lib/db/existing-database-url";
import { UserError } from "@/lib/errors/user-error";

/** Everything the server needs before its first request; returns the first problem, or null. */
export function checkServerStartup(): string | null {
  try {
    env(); // every variable checked first: a bad one is named, never taken as its default
    assertDemoModeAllowed();
    loadConfig();
    if (!resolveExistingDatabaseUrl()) {
      return "no database: set DATABASE_URL, or start with `npm start` / `npm run demo`, which serve the embedded database.";
    }
    if (!env().NEXTAUTH_SECRET) {
      return "NEXTAUTH_SECRET is not set. Generate one with `openssl rand -base64 32` (npm start and npm run demo make one under .data/).";
    }
    if (configuredSignInOptions().length === 0) {
      return "no sign-in method: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or GITHUB_ID and GITHUB_SECRET (or IDEM_DEMO=1 for a demo).";
    }
    return null;
  } catch (error) {
    if (error instanceof UserError) return error.message;
    throw error;
  }
}

export function exitOnStartupProblem(): void {
  const problem = checkServerStartup();
  if (problem) {
    console.error(`Idem Console cannot start: ${problem}`);
    process.exit(1);
  }
}
