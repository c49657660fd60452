import { spawn } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { childEnvironment, env } from "@/lib/config/environment";
import { UserError } from "@/lib/errors/user-error";

const SOURCES = [
  "app",
  "components",
  "lib",
  "generated/prisma",
  "types",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "package-lock.json",
  "postcss.config.mjs",
];
/** Written only after `next build` succeeds: a build that was killed halfway leaves a BUILD_ID but not this. */
const COMPLETE_MARKER = "idem-build-complete";

export function nextBin(): string {
  return path.resolve("node_modules/next/dist/bin/next");
}

/**
 * Builds the console when there is no production build or a source file is newer than it.
 * Asynchronous, so the demo can drive its history while the build runs.
 */
export async function ensureProductionBuild(options: { force?: boolean; quietStdout?: boolean } = {}): Promise<void> {
  const distDir = path.resolve(env().IDEM_NEXT_DIST_DIR ?? ".next");
  const marker = path.join(distDir, COMPLETE_MARKER);
  const builtAt = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  if (!options.force && builtAt > 0 && newestSourceMtime() <= builtAt) return;
  // quietStdout: the build's output goes to stderr, for commands whose stdout is data (bench --json).
  (options.quietStdout ? console.error : console.log)(
    builtAt === 0
      ? "building the console (no complete build yet)…"
      : "sources changed since the last build: rebuilding…",
  );
  rmSync(marker, { force: true });
  const startedAt = Date.now();
  const child = spawn(process.execPath, [nextBin(), "build"], {
    stdio: options.quietStdout ? ["ignore", 2, 2] : "inherit",
    env: childEnvironment({ NEXT_TELEMETRY_DISABLED: "1" }),
  });
  // Ctrl-C or a SIGTERM during the build stops the build too, rather than orphaning it.
  const stop = () => child.kill("SIGTERM");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve)).finally(() => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  });
  if (code !== 0) throw new UserError("`next build` failed; its output is above.", 1);
  // Dated when the build began: a source saved during the build is newer, so the next start rebuilds.
  writeFileSync(marker, new Date(startedAt).toISOString());
  utimesSync(marker, startedAt / 1000, startedAt / 1000);
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
