import { spawn } from "node:child_process";
import path from "node:path";

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs `npm run idem -- <args>` the way a user does (without npm's own banner); `onStderr` sees stderr as it comes. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  onStderr?: (text: string) => void,
): Promise<CliResult> {
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, "--conditions=react-server", "lib/cli/main.ts", ...args], {
      env: { ...process.env, IDEM_DEBUG: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(d.toString());
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
