import { spawn } from "node:child_process";
import { idemNodeArgs } from "./idem-command";

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs `npm run idem -- <args>` the way a user does (without npm's own banner); `onStderr` sees stderr as it comes. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  onStderr?: (text: string) => void,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...idemNodeArgs(), ...args], {
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
