import { spawn } from "node:child_process";
import path from "node:path";
import { describe, it } from "vitest";

/** Runs a tool from node_modules in the repository root; resolves with its exit code and output. */
function runTool(script: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve(script), ...args], {
      cwd: path.resolve("."),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

// The linter and the formatter are part of the test command: a file that breaks either fails the run.
// Concurrent: each tool is one single-threaded process, so side by side they take the time of the longer.
// The timeouts only catch a hang: on 2 cores shared with other builds, ESLint has taken over 5 minutes.
describe.concurrent("code style", () => {
  it(
    "ESLint (eslint-config-next, core web vitals and TypeScript) finds nothing",
    { timeout: 900_000 },
    async ({ expect }) => {
      const result = await runTool("node_modules/eslint/bin/eslint.js", [".", "--max-warnings", "0"]);
      expect(result.output).toBe("");
      expect(result.code).toBe(0);
    },
  );

  it("every file is formatted as Prettier writes it", { timeout: 900_000 }, async ({ expect }) => {
    const result = await runTool("node_modules/prettier/bin/prettier.cjs", ["--check", ".", "--log-level", "warn"]);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });
});
