import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { withBuildLock } from "@/lib/build/build-lock";
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
  const builtAt = () => (existsSync(marker) ? statSync(marker).mtimeMs : 0);
  const current = () => !options.force && builtAt() > 0 && newestSourceMtime() <= builtAt();
  if (current()) return;
  // quietStdout: the build's output goes to stderr, for commands whose stdout is data (bench --json).
  const say = options.quietStdout ? console.error : console.log;
  // One build of a directory at a time (Next's own lock would fail the second): wait, then use its build.
  // Outside distDir, which `next build` empties first.
  const lock = path.join(
    tmpdir(),
    `idem-build-${createHash("sha256").update(distDir).digest("hex").slice(0, 16)}.lock`,
  );
  await withBuildLock(
    lock,
    async () => {
      if (current()) return; // built by the process this one waited for
      say(
        builtAt() === 0
          ? "building the console (no complete build yet)…"
          : "sources changed since the last build: rebuilding…",
      );
      await build(marker, options.quietStdout ?? false);
    },
    { onWait: () => say(`another process is building ${distDir}: waiting for it…`) },
  );
}

async function build(marker: string, quietStdout: boolean): Promise<void> {
  rmSync(marker, { force: true });
  const startedAt = Date.now();
  const child = spawn(process.execPath, [nextBin(), "build"], {
    stdio: quietStdout ? ["ignore", 2, 2] : "inherit",
    env: childEnvironment({ NEXT_TELEMETRY_DISABLED: "1", IDEM_BUILD_SKIP_TYPECHECK: "1" }),
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
