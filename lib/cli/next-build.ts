import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { UserError } from "@/lib/errors/user-error";

const SOURCES = ["app", "components", "lib", "proxy.ts", "instrumentation.ts", "next.config.ts", "package-lock.json", "postcss.config.mjs"];

export function nextBin(): string {
  return path.resolve("node_modules/next/dist/bin/next");
}

/**
 * Builds the console when there is no production build or a source file is newer than it.
 * Asynchronous, so the demo can drive its history while the build runs.
 */
export async function ensureProductionBuild(options: { force?: boolean; quietStdout?: boolean } = {}): Promise<void> {
  const buildId = path.resolve(process.env.IDEM_NEXT_DIST_DIR || ".next", "BUILD_ID");
  const builtAt = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  if (!options.force && builtAt > 0 && newestSourceMtime() <= builtAt) return;
  // quietStdout: the build's output goes to stderr, for commands whose stdout is data (bench --json).
  (options.quietStdout ? console.error : console.log)(builtAt === 0 ? "building the console (first run)…" : "sources changed since the last build: rebuilding…");
  const child = spawn(process.execPath, [nextBin(), "build"], {
    stdio: options.quietStdout ? ["ignore", 2, 2] : "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new UserError("`next build` failed; its output is above.", 1);
}

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p)) visit(path.join(p, entry));
    } else {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  SOURCES.forEach((s) => visit(path.resolve(s)));
  return newest;
}
