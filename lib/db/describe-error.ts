import { redactUrl } from "@/lib/db/database-url";

type PgLikeError = {
  code?: string;
  message?: string;
  errors?: unknown[];
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: string } } };
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
      return `The database${where} refused the credentials: ${e.message}. Check the user and password in DATABASE_URL.`;
    case "P2021":
    case "42P01":
      return `The database${where} has no console tables yet (${e.message}). Run: npm run idem -- migrate`;
    default:
      return `Database error${where}: ${e.message ?? String(error)}`;
  }
}

const UNAVAILABLE = new Set(["P1000", "P1001", "P1002", "P1003", "P1010", "P1017", "ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "3D000", "28P01", "28000", "57P01", "57P03"]);

/** True when the error means "the database cannot be used right now", not "this query is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = unwrap(error).code;
  return code !== undefined && UNAVAILABLE.has(code);
}

function unwrap(error: unknown): PgLikeError {
  if (error && typeof error === "object") {
    const e = error as PgLikeError;
    const kind = e.meta?.driverAdapterError?.cause?.kind;
    if (kind && ADAPTER_KINDS[kind]) return { ...e, code: ADAPTER_KINDS[kind] };
    // node's AggregateError (IPv4 + IPv6 attempts) hides the code on its members.
    if (!e.code && Array.isArray(e.errors) && e.errors[0]) return unwrap(e.errors[0]);
    if (!e.code && e.cause) return unwrap(e.cause);
    return e;
  }
  return { message: String(error) };
}
