import { z } from "zod";
import { parseDuration } from "@/lib/config/duration";
import { UserError } from "@/lib/errors/user-error";

/**
 * Every environment variable the console, the server and the CLI read, in one schema, parsed once
 * per process. A bad value stops startup (instrumentation.ts) or the CLI command with one line
 * naming the variable, instead of quietly meaning the default. No `server-only` here: the CLI
 * (tsx) and proxy.ts import this module too. README's table of variables says what each does.
 *
 * Blank ("") means unset for every variable but IDEM_CONFIG, where an explicit empty path stays
 * an error of the configuration loader, as it always was.
 */

/** Unset or blank → undefined; otherwise the text as given. */
const text = z
  .string()
  .optional()
  .transform((raw) => (raw === undefined || raw.trim() === "" ? undefined : raw));

/** "1" on; "0", blank or unset off; anything else is a typo worth naming. */
const flag = z
  .string()
  .optional()
  .refine((raw) => raw === undefined || ["", "0", "1"].includes(raw.trim()), { message: "must be 1 or 0 (or unset)" })
  .transform((raw) => raw?.trim() === "1");

const httpUrl = text.refine((raw) => raw === undefined || (/^https?:\/\/[^/]/.test(raw) && URL.canParse(raw)), {
  message: "must be an http:// or https:// URL",
});

/** A positive duration ("30m", "12h") in milliseconds; undefined when unset. */
const sessionDuration = text.transform((raw, ctx) => {
  if (raw === undefined) return undefined;
  const ms = parseDuration(raw);
  if (ms === null || ms <= 0) {
    ctx.addIssue({ code: "custom", message: 'is not a duration like "30m" or "12h"' });
    return z.NEVER;
  }
  return ms;
});

/** A database time limit ("5s", "500ms") in milliseconds; undefined when unset (idem.config.json decides). */
const databaseLimit = text.transform((raw, ctx) => {
  if (raw === undefined) return undefined;
  const ms = parseDuration(raw);
  if (ms === null || ms <= 0) {
    ctx.addIssue({ code: "custom", message: 'is not a positive duration like "5s" or "500ms"' });
    return z.NEVER;
  }
  return ms;
});

const wholeNumber = (what: string, max: number) =>
  text.transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    const value = Number(raw.trim());
    if (!Number.isInteger(value) || value < 0 || value > max) {
      ctx.addIssue({ code: "custom", message: `must be ${what}` });
      return z.NEVER;
    }
    return value;
  });

export const environmentSchema = z.object({
  NODE_ENV: text,
  // Databases: checked as PostgreSQL URLs where they are used (lib/db/database-url.ts), which names the variable too.
  DATABASE_URL: text,
  DATABASE_MIGRATE_URL: text,
  // A streaming read replica of DATABASE_URL for lists, counts, metrics and exports (lib/db/client.ts).
  DATABASE_READ_URL: text,
  // Over idem.config.json's database.* limits (lib/db/timeouts.ts).
  IDEM_DB_CONNECT_TIMEOUT: databaseLimit,
  IDEM_DB_STATEMENT_TIMEOUT: databaseLimit,
  IDEM_DB_LOCK_TIMEOUT: databaseLimit,
  IDEM_DB_EXPORT_STATEMENT_TIMEOUT: databaseLimit,
  // Over database.replicaLagWarning (lib/db/replica-lag.ts).
  IDEM_DB_REPLICA_LAG_WARNING: databaseLimit,
  // Sign-in and sessions.
  NEXTAUTH_URL: httpUrl,
  NEXTAUTH_SECRET: text,
  OIDC_ISSUER: httpUrl,
  OIDC_CLIENT_ID: text,
  OIDC_CLIENT_SECRET: text,
  OIDC_NAME: text,
  GITHUB_ID: text,
  GITHUB_SECRET: text,
  IDEM_SESSION_IDLE: sessionDuration,
  IDEM_SESSION_MAX_AGE: sessionDuration,
  IDEM_TRUST_PROXY: flag,
  // Demo mode.
  IDEM_DEMO: flag,
  IDEM_DEMO_ALLOW_PRODUCTION: flag,
  IDEM_DEMO_HISTORY_HOURS: wholeNumber("a whole number of hours, 0 or more", 24 * 366),
  // Files, ports and the CLI.
  IDEM_CONFIG: z.string().optional(),
  IDEM_DATA_DIR: text,
  IDEM_EMBEDDED_PORT: wholeNumber("a port number from 0 to 65535", 65_535),
  IDEM_NEXT_DIST_DIR: text,
  IDEM_DEBUG: flag,
  // How often a running trim or reconcile writes its heartbeat (lib/audit/job-runs.ts; default 10s).
  IDEM_JOB_HEARTBEAT: databaseLimit,
});

export type Environment = z.infer<typeof environmentSchema>;
type Variables = Readonly<Record<string, string | undefined>>;

/** Validates a set of variables (process.env, or a test's own); throws a UserError naming each bad one. */
export function parseEnvironment(variables: Variables): Environment {
  const result = environmentSchema.safeParse(variables);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0]);
    return `${name}=${JSON.stringify(variables[name])} ${issue.message}`;
  });
  throw new UserError(`${problems.join("; ")}.`);
}

let parsed: Environment | undefined;

/** This process's environment, validated on first use and kept. */
export function env(): Environment {
  parsed ??= parseEnvironment(process.env);
  return parsed;
}

/**
 * Forgets the parsed environment so the next env() reads process.env again. For tests, which set
 * variables between files and cases (tests/setup/fresh-environment.ts calls it before each test).
 */
export function resetEnvironment(): void {
  parsed = undefined;
}

/** IDEM_DEBUG=1, even when another variable is bad: the CLI's error path asks this while reporting that very error. */
export function debugRequested(): boolean {
  try {
    return env().IDEM_DEBUG;
  } catch {
    return process.env.IDEM_DEBUG?.trim() === "1";
  }
}

/** The environment a child process (next build, next start) inherits: all of it (PATH, HOME…), with these set on top. */
export function childEnvironment(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}

/** A variable the operator named at run time (`idem db grant --password-env VAR`), so it has no place in the schema. */
export function namedVariable(name: string): string | undefined {
  return process.env[name];
}
