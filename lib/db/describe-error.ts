import { redactUrl } from "@/lib/db/database-url";

type PgLikeError = {
  code?: string;
  message?: string;
  errors?: unknown[];
  cause?: unknown;
  kind?: string;
  meta?: { driverAdapterError?: { cause?: AdapterVerdict } };
};

// Prisma's raw queries (P2010) carry the driver adapter's verdict as a `kind`; name it like Prisma's own codes.
const ADAPTER_KINDS: Record<string, string> = {
  DatabaseNotReachable: "P1001",
  SocketTimeout: "P1002",
  DatabaseDoesNotExist: "P1003",
  AuthenticationFailed: "P1000",
  ConnectionClosed: "P1017",
  TableDoesNotExist: "P2021",
};

/** Turns a driver error into one line that says what is wrong and what to do. */
export function describeDatabaseError(error: unknown, url?: string): string {
  const where = url ? ` at ${redactUrl(url)}` : "";
  const e = unwrap(error);
  // An adapter's verdict can come without a message: then the line says what it says without one.
  const said = e.message ? ` (${e.message})` : "";
  switch (e.code) {
    case "P1001":
    case "P1002":
    case "P1017":
    case "ECONNREFUSED":
      return `Cannot reach the database${where}: connection refused. Is PostgreSQL running there? Unset DATABASE_URL to use the embedded database.`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `Cannot reach the database${where}: the host name does not resolve. Check DATABASE_URL.`;
    case "ETIMEDOUT":
      return `Cannot reach the database${where}: the connection timed out. Check the host, port and firewall.`;
    case "P1003":
    case "3D000":
      return `The database${where} does not exist. Create it (createdb) or fix the name in DATABASE_URL.`;
    case "P1000":
    case "28P01":
    case "28000":
      return `The database${where} refused the credentials${said}. Check the user and password in DATABASE_URL.`;
    case "P2021":
    case "42P01":
      return `The database${where} has no console tables yet${said}. Run: npm run idem -- migrate`;
    case "57P01":
    case "57P02":
    case "57P03":
      return `The database${where} is shutting down, restarting or in recovery${said}. Try again shortly.`;
    case "57014":
      return `The database${where} did not finish the statement within statement_timeout${said}.`;
    case "55P03":
      return `The database${where} could not lock the row within lock_timeout: another writer holds it${said}.`;
    default:
      if (databaseFaultOf(error) === "unavailable")
        return `Cannot use the database${where} right now: ${e.message ?? String(error)}.`;
      return `Database error${where}: ${e.message ?? String(error)}`;
  }
}

const UNAVAILABLE = new Set([
  ...[
    "P1000",
    "P1001",
    "P1002",
    "P1003",
    "P1010",
    "P1017",
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ETIMEDOUT",
    "ECONNRESET",
    "EPIPE",
    "3D000",
    "28P01",
    "28000",
  ],
  // admin_shutdown (pg_terminate_backend, a fast shutdown), crash_shutdown, cannot_connect_now (shutting down,
  // starting up, in recovery), too_many_connections, the connection_exception class.
  ...["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006", "08P01"],
]);

// pg and pg-pool throw these as plain Errors without a code; Prisma passes them through unchanged.
const UNAVAILABLE_MESSAGES = [
  /timeout exceeded when trying to connect/i, // pg-pool: no connection within connectionTimeoutMillis
  /Connection terminated/i, // "… unexpectedly", "… due to connection timeout"
  /Query read timeout/i, // pg's query_timeout: a connection that stopped answering
  /Server has closed the connection/i,
  /Client has encountered a connection error/i,
  /Connection ended unexpectedly|socket hang up/i,
  /the database system is (shutting down|starting up|in recovery mode|not yet accepting connections)/i,
  /terminating connection due to administrator command/i,
];

/**
 * What a failed query says about the database rather than about the query:
 * - "unavailable": it cannot be reached or used now (refused, reset, shut down, starting, not answering) — retry later;
 * - "timeout": statement_timeout (57014) cut a statement off — the database is slow or overloaded, retry later;
 * - "locked": lock_timeout (55P03) — another writer holds the row, retry shortly;
 * - null: the query itself failed (a bug or bad input), not a fault of the database.
 */
export type DatabaseFault = "unavailable" | "timeout" | "locked";

export function databaseFaultOf(error: unknown): DatabaseFault | null {
  const e = unwrap(error);
  if (e.code === "57014") return "timeout";
  if (e.code === "55P03") return "locked";
  if (e.code !== undefined && UNAVAILABLE.has(e.code)) return "unavailable";
  const messages = [e.message, (error as { message?: string } | null)?.message].filter(
    (m): m is string => typeof m === "string",
  );
  if (messages.some((message) => UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)))) return "unavailable";
  return null;
}

/** True when the error means "the database cannot be used right now", not "this query is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseFaultOf(error) === "unavailable";
}

type AdapterVerdict = { kind?: string; code?: string; message?: string };

function isVerdict(value: unknown): value is AdapterVerdict {
  return typeof value === "object" && value !== null && typeof (value as AdapterVerdict).kind === "string";
}

function unwrap(error: unknown): PgLikeError {
  if (error && typeof error === "object") {
    const e = error as PgLikeError;
    // Prisma's errors carry the adapter's verdict in meta; a bare DriverAdapterError (from BEGIN or ROLLBACK
    // of a transaction) carries it as its cause; the verdict itself has a kind.
    const cause =
      e.meta?.driverAdapterError?.cause ?? (e.kind ? e : !e.code && isVerdict(e.cause) ? e.cause : undefined);
    if (cause?.kind && ADAPTER_KINDS[cause.kind]) return { ...e, code: ADAPTER_KINDS[cause.kind] };
    // A PostgreSQL error inside Prisma's P2010 (raw query) or a model query: its SQLSTATE says more than P2010.
    if (cause?.kind === "postgres" && cause.code)
      return { ...e, code: cause.code, message: cause.message ?? e.message };
    if (cause?.kind === "TooManyConnections") return { ...e, code: "53300" };
    // node's AggregateError (IPv4 + IPv6 attempts) hides the code on its members.
    if (!e.code && Array.isArray(e.errors) && e.errors[0]) return unwrap(e.errors[0]);
    if (!e.code && e.cause) return unwrap(e.cause);
    return e;
  }
  return { message: String(error) };
}
