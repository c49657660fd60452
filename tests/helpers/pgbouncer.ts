import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { DEFAULT_DATABASE_TIMEOUTS } from "@/lib/config/schema";
import { poolerLimitsStatement } from "@/lib/db/pooler";
import { consoleTimeouts } from "@/lib/db/timeouts";
import { freePort } from "./free-port";

export const PGBOUNCER_BINARY = "/usr/sbin/pgbouncer";

export type PgBouncer = {
  /** `server` with its host and port replaced by PgBouncer's, and `pgbouncer=true` (lib/db/pooler.ts). */
  urlFor(server: string): string;
  port: number;
  /** One row per pool (database, user) from the admin console's SHOW POOLS / SHOW STATS. */
  show(what: "POOLS" | "STATS" | "SERVERS" | "CLIENTS"): Promise<Record<string, string>[]>;
  log(): string;
  stop(): Promise<void>;
};

/**
 * Debian's PgBouncer (1.18) in front of the PostgreSQL server `server` names, on a free loopback
 * port, in transaction mode: a server connection belongs to a client only for one transaction, so
 * any session state (SET, session advisory locks, LISTEN, named prepared statements) would leak to
 * other clients or be lost. 1.18 has no max_prepared_statements (1.21+): protocol-level named
 * statements are unsupported, and node-postgres/Prisma's adapter send only unnamed ones.
 */
export async function startPgBouncer(server: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const target = new URL(server);
  const dir = mkdtempSync(path.join(tmpdir(), "idem-pgbouncer-"));
  chmodSync(dir, 0o777); // started as root it drops to `user` below, which must write its log here
  const port = await freePort();
  const authFile = path.join(dir, "users.txt");
  const user = decodeURIComponent(target.username || "postgres");
  writeFileSync(authFile, `"${user}" ""\n`);
  const ini = path.join(dir, "pgbouncer.ini");
  writeFileSync(
    ini,
    [
      "[databases]",
      // The fallback: any database name a client asks for, on the same server.
      `* = host=${target.hostname} port=${target.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${authFile}`,
      `admin_users = ${user}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 4}`,
      "max_client_conn = 500",
      // No ignore_startup_parameters: node-postgres sends user, database, client_encoding and (when set)
      // application_name, which PgBouncer handles; statement_timeout, lock_timeout or options must be
      // refused, not ignored — dropping them would silently lift the console's limits (lib/db/pooler.ts).
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      ...(process.getuid?.() === 0 ? ["user = postgres"] : []),
    ].join("\n") + "\n",
  );
  chmodSync(ini, 0o644);
  chmodSync(authFile, 0o644);
  const child: ChildProcess = spawn(PGBOUNCER_BINARY, [ini], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.on(
    "error",
    (error) => (output += `cannot run ${PGBOUNCER_BINARY} (apt-get install pgbouncer): ${error.message}\n`),
  );
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const log = () => {
    try {
      return readFileSync(path.join(dir, "pgbouncer.log"), "utf8") + output;
    } catch {
      return output;
    }
  };
  const admin = () => {
    const url = new URL(`postgresql://127.0.0.1:${port}/pgbouncer`);
    url.username = user;
    return url.toString();
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.pid === undefined)
      throw new Error(`pgbouncer exited (${child.exitCode}):\n${log()}`);
    const probe = new pg.Client({ connectionString: admin() });
    try {
      await probe.connect();
      await probe.query("SHOW VERSION");
      await probe.end();
      break;
    } catch {
      await probe.end().catch(() => {});
      if (Date.now() > deadline) {
        child.kill("SIGTERM");
        throw new Error(`pgbouncer did not come up on port ${port}:\n${log()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    urlFor(serverUrl) {
      const url = new URL(serverUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      url.searchParams.set("pgbouncer", "true");
      return url.toString();
    },
    async show(what) {
      // The admin console speaks only the simple query protocol: pg's query without parameters uses it.
      const client = new pg.Client({ connectionString: admin() });
      await client.connect();
      try {
        return (await client.query<Record<string, string>>(`SHOW ${what}`)).rows;
      } finally {
        await client.end();
      }
    },
    log,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Gives the role `direct` connects as the console's default limits in that database, as a pooled
 * deployment does for its console role (lib/db/pooler.ts): every server connection PgBouncer opens
 * there then runs with them. Run on a direct connection.
 */
export async function applyPoolerLimits(direct: string): Promise<void> {
  const client = new pg.Client({ connectionString: direct });
  await client.connect();
  try {
    const { rows } = await client.query<{ role: string; db: string }>(
      "SELECT current_user AS role, current_database() AS db",
    );
    const timeouts = consoleTimeouts("interactive", DEFAULT_DATABASE_TIMEOUTS, {});
    await client.query(
      poolerLimitsStatement(timeouts, pg.escapeIdentifier(rows[0]!.role), pg.escapeIdentifier(rows[0]!.db)),
    );
  } finally {
    await client.end();
  }
}
