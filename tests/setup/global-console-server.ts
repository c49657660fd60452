import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createTestDatabase } from "../helpers/test-database";
import { freePort } from "../helpers/free-port";

/**
 * Starts the console the way `npm run demo` does (the real launcher, a production build,
 * `next start`), on the run's own database and a free port; stops it and drops the database after.
 */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase();
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  const child: ChildProcess = spawn(process.execPath, [tsx, "--conditions=react-server", "lib/cli/main.ts", "demo", "--port", String(port)], {
    env: { ...process.env, DATABASE_URL: database.url, NEXTAUTH_URL: baseUrl, NEXTAUTH_SECRET: "test-secret-for-the-browser-run", IDEM_DEMO_HISTORY_HOURS: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));

  const deadline = Date.now() + 600_000; // includes a first `next build` on a fresh clone, slow on two busy cores
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the console exited (${child.exitCode}) before it was ready:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM"); // and the build it started: the launcher stops what it started
      throw new Error(`the console did not come up in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }

  project.provide("databaseUrl", database.url);
  project.provide("databaseKind", database.kind);
  project.provide("baseUrl", baseUrl);

  return async () => {
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    await database.drop();
  };
}
