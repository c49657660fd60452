import { execFile } from "node:child_process";
import { appendFileSync, chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "@/tools/bench/bench-server";

const run = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";

export type RestartMode = "fast" | "immediate";

/** A PostgreSQL 15 cluster the soak owns: it may restart it at will, which it must never do to the shared server. */
export type SoakCluster = {
  url: string;
  port: number;
  dataDir: string;
  restart(mode: RestartMode): Promise<void>;
  /** Stops the cluster and removes its directory. */
  destroy(): Promise<void>;
};

/** pg_ctl refuses to run as root, so as root it runs as `postgres` (as tests/setup/start-replica.sh does). */
async function asPostgres(command: string, args: string[]): Promise<void> {
  const [file, argv] =
    userInfo().username === "postgres"
      ? [path.join(BIN, command), args]
      : ["runuser", ["-u", "postgres", "--", path.join(BIN, command), ...args]];
  await run(file, argv, { timeout: 120_000 });
}

/**
 * initdb into a temporary directory, listening on a free loopback port with trust authentication,
 * started with pg_ctl. Small settings: the soak's load is a console's, not a benchmark's.
 */
export async function createSoakCluster(): Promise<SoakCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "idem-soak-pg-"));
  const dataDir = path.join(dir, "data");
  const log = path.join(dir, "postgres.log");
  if (userInfo().username !== "postgres") chownSync(dir, ...postgresIds());
  const port = await freePort();
  const pgCtl = (...args: string[]) => asPostgres("pg_ctl", ["-D", dataDir, ...args]);
  try {
    await asPostgres("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    const conf = [
      "listen_addresses = '127.0.0.1'",
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      "max_connections = 100",
      "shared_buffers = 64MB",
      "fsync = off",
      "logging_collector = off",
    ].join("\n");
    // Appended: a later line wins over initdb's defaults.
    appendFileSync(path.join(dataDir, "postgresql.conf"), `\n# idem soak\n${conf}\n`);
    await pgCtl("-l", log, "-w", "-t", "60", "start");
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    restart: (mode) => pgCtl("-l", log, "-m", mode, "-w", "-t", "60", "restart"),
    async destroy() {
      await pgCtl("-m", "immediate", "-w", "stop").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): [number, number] {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("soak: no `postgres` OS user to run PostgreSQL as (we are root)");
  const [, , uid, gid] = line.split(":");
  return [Number(uid), Number(gid)];
}
