import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { embeddedDatabaseUrl, startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { freePort } from "../helpers/free-port";

export type ConsoleUnderTest = {
  baseUrl: string;
  /** The database the console serves (for the embedded one: its socket URL, known once it is up). */
  databaseUrl: string;
  dataDir: string;
  /** The idem.config.json the demo launcher wrote for this console. */
  configFile: string;
  output(): string;
  stop(): Promise<void>;
};

/**
 * A console started the way `npm run demo` starts it (the real launcher: migrations, demo sign-ins,
 * the demo world, its history when the table is empty, `next start` on the one production build),
 * on its own database, data directory and port. Without `databaseUrl` it serves the embedded
 * database (PGlite) from the data directory, as `npm run demo` does on a fresh clone.
 */
export async function startConsole(options: { databaseUrl?: string; historyHours: number }): Promise<ConsoleUnderTest> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idem-truth-"));
  let started: ConsoleProcess;
  try {
    started = await startConsoleProcess({
      port: await freePort(),
      deadlineMs: 300_000,
      env: {
        DATABASE_URL: options.databaseUrl ?? "",
        IDEM_DATA_DIR: dataDir,
        IDEM_EMBEDDED_PORT: "0", // any free port: never another run's embedded database
        IDEM_DEMO_HISTORY_HOURS: String(options.historyHours),
        NEXTAUTH_SECRET: "truth-test-secret",
      },
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { baseUrl, output } = started;
  const stop = async () => {
    await started.stop(); // the launcher stops next start, the demo world and the embedded database
    rmSync(dataDir, { recursive: true, force: true });
  };
  const databaseUrl = options.databaseUrl ?? embeddedDatabaseUrl(dataDir);
  const configFile = path.join(dataDir, "demo.idem.config.json");
  if (!existsSync(configFile)) throw new Error(`the demo launcher wrote no ${configFile}:\n${output()}`);
  return { baseUrl, databaseUrl, dataDir, configFile, output, stop };
}
