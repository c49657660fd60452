import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { idemNodeArgs } from "./idem-command";

export type ConsoleProcess = { baseUrl: string; port: number; output(): string; stop(): Promise<void> };

/**
 * Starts the console the way `npm run demo` does (the real launcher, a production build, `next start`)
 * on `port`, with `env` over this process's, and waits until /api/health answers. stop() ends the
 * launcher, which stops what it started (the server, the demo world, an embedded database).
 * `command: "serve"` starts it as production does instead: no demo mode, no demo accounts, on 127.0.0.1.
 */
export async function startConsoleProcess(options: {
  port: number;
  env: Record<string, string | undefined>;
  deadlineMs?: number;
  command?: "demo" | "serve";
}): Promise<ConsoleProcess> {
  const baseUrl = `http://localhost:${options.port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    NEXTAUTH_URL: baseUrl,
    NEXTAUTH_SECRET: "test-secret-for-the-browser-run",
    ...options.env,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const command = options.command === "serve" ? ["serve", "--host", "127.0.0.1"] : ["demo"];
  const child: ChildProcess = spawn(process.execPath, [...idemNodeArgs(), ...command, "--port", String(options.port)], {
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
  };

  // The deadline includes a first `next build` on a fresh clone, slow on two busy cores.
  const deadline = Date.now() + (options.deadlineMs ?? 600_000);
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the console exited (${child.exitCode}) before it was ready:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the console did not come up in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { baseUrl, port: options.port, output: () => output, stop };
}

/** The URL of the embedded database a console started without DATABASE_URL serves from `dataDir`. */
export function embeddedDatabaseUrl(dataDir: string): string {
  return (JSON.parse(readFileSync(path.join(dataDir, "embedded.json"), "utf8")) as { url: string }).url;
}
