import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
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
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  const child: ChildProcess = spawn(process.execPath, [tsx, "--conditions=react-server", "lib/cli/main.ts", "demo", "--port", String(port)], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl ?? "",
      IDEM_DATA_DIR: dataDir,
      IDEM_EMBEDDED_PORT: "0", // any free port: never another run's embedded database
      IDEM_DEMO_HISTORY_HOURS: String(options.historyHours),
      NEXTAUTH_URL: baseUrl,
      NEXTAUTH_SECRET: "truth-test-secret",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM"); // the launcher stops next start, the demo world and the embedded database
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the console exited (${child.exitCode}) before it was ready:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the console did not come up in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const databaseUrl = options.databaseUrl ?? embeddedUrl(dataDir);
  const configFile = path.join(dataDir, "demo.idem.config.json");
  if (!existsSync(configFile)) throw new Error(`the demo launcher wrote no ${configFile}:\n${output}`);
  return { baseUrl, databaseUrl, dataDir, configFile, output: () => output, stop };
}

function embeddedUrl(dataDir: string): string {
  const record = JSON.parse(readFileSync(path.join(dataDir, "embedded.json"), "utf8")) as { url: string };
  return record.url;
}
