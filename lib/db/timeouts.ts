import type { IdemConfig } from "@/lib/config/schema";
import { env, type Environment } from "@/lib/config/environment";

/** Limits on one pool's connections, in milliseconds; a missing statement or lock limit means none. */
export type DatabaseTimeouts = { connectMs: number; statementMs?: number; lockMs?: number };

/** The CLI, migrations, bench and demo history: a connect limit only, never a cut-off statement. */
export const UNLIMITED_STATEMENTS: DatabaseTimeouts = { connectMs: 5_000 };

/**
 * How long pg itself waits for any answer on a connection after statement_timeout should have
 * ended the statement: a server that stopped answering (a hung host, a dropped network) is only
 * noticed by the client, and without this a request would hang on an open connection for ever.
 */
export const CLIENT_MARGIN_MS = 2_000;

export type ConsoleRequestKind = "interactive" | "export";

// Env overrides, for a launcher that writes its own config file (`idem demo`) and for operators;
// parsed (and refused by name) with the rest of the environment (lib/config/environment.ts).
const ENV = {
  connectTimeout: "IDEM_DB_CONNECT_TIMEOUT",
  statementTimeout: "IDEM_DB_STATEMENT_TIMEOUT",
  lockTimeout: "IDEM_DB_LOCK_TIMEOUT",
  exportStatementTimeout: "IDEM_DB_EXPORT_STATEMENT_TIMEOUT",
} as const;

export type DatabaseLimitOverrides = Partial<Pick<Environment, (typeof ENV)[keyof typeof ENV]>>;

/**
 * The console's limits for one kind of request: pages and API calls get the short statement limit,
 * exports the longer one; both get the short lock limit, so an operator's write never queues behind
 * a writer's transaction for long.
 */
export function consoleTimeouts(
  kind: ConsoleRequestKind,
  config: Pick<IdemConfig["database"], keyof typeof ENV>,
  overrides: DatabaseLimitOverrides = env(),
): DatabaseTimeouts {
  const value = (key: keyof typeof ENV) => overrides[ENV[key]] ?? config[key];
  return {
    connectMs: value("connectTimeout"),
    statementMs: kind === "export" ? value("exportStatementTimeout") : value("statementTimeout"),
    lockMs: value("lockTimeout"),
  };
}
