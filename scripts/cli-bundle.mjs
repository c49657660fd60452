// The CLI as one esbuild bundle (lib/cli/main.ts and what it imports from this repository; packages
// stay in node_modules). Starting it costs about a third of starting it through tsx, which resolves
// and transforms each of its modules on every start (docs/cli.md, "How `npm run idem` starts").

import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
/** Where builds go; node_modules/.cache, so `npm ci` starts afresh. */
export const DEFAULT_CACHE = path.join(ROOT, "node_modules", ".cache", "idem-cli");
/** Older builds are kept this long: a process started from one may still load its lazy chunks. */
const KEEP_OLD_BUILDS_MS = 24 * 60 * 60 * 1000;
/** The export's worker thread's entry, beside main.mjs. */
export const EXPORT_WORKER = "export-worker";
/** The demo history's worker process's entry, beside main.mjs: forked without tsx (0.4–0.6 CPU s a start less). */
export const HISTORY_WORKER = "history-worker";
/** Read by the bundle (besides the files it imports): tsconfig's paths decide what `@/…` means. */
const CONFIG_INPUTS = ["tsconfig.json", "package.json", "scripts/cli-bundle.mjs"];

/** The bundle's entry file, built first when any file it was built from changed since. */
export async function cliEntry(cache = DEFAULT_CACHE) {
  const current = readPointer(cache);
  if (current && isFresh(cache, current)) return path.join(cache, current.dir, "main.mjs");
  return (await buildCli(cache)).entry;
}

/** Builds the bundle into a directory of its own and points `current.json` at it (a rename: atomic). */
export async function buildCli(cache = DEFAULT_CACHE) {
  const startedAt = Date.now();
  const dir = `build-${startedAt}-${process.pid}`;
  const outdir = path.join(cache, dir);
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: ROOT,
    // The workers are files of their own beside main.mjs; the defines tell lib/records/export-worker-client.ts and
    // tools/demo/traffic/run-history-workers.ts their names.
    entryPoints: {
      main: "lib/cli/main.ts",
      [EXPORT_WORKER]: "lib/records/export-worker.ts",
      [HISTORY_WORKER]: "tools/demo/traffic/history-worker.ts",
    },
    define: {
      __IDEM_CLI_EXPORT_WORKER__: JSON.stringify(`${EXPORT_WORKER}.mjs`),
      __IDEM_CLI_HISTORY_WORKER__: JSON.stringify(`${HISTORY_WORKER}.mjs`),
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Each command's module stays a chunk of its own, loaded when that command runs (lib/cli/main.ts).
    splitting: true,
    packages: "external",
    conditions: ["react-server"],
    outdir,
    outExtension: { ".js": ".mjs" },
    sourcemap: true,
    metafile: true,
    logLevel: "error",
  });
  const inputs = [...Object.keys(result.metafile.inputs), ...CONFIG_INPUTS];
  const pointer = { dir, builtAt: startedAt, inputs };
  const temporary = `${pointerFile(cache)}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify(pointer));
  renameSync(temporary, pointerFile(cache));
  removeOldBuilds(cache, dir);
  return { entry: path.join(outdir, "main.mjs"), inputs: inputs.length };
}

/** `current.json`: the newest build's directory, when it started, and the files it was built from. */
export function pointerFile(cache) {
  return path.join(cache, "current.json");
}

function readPointer(cache) {
  try {
    return JSON.parse(readFileSync(pointerFile(cache), "utf8"));
  } catch {
    return null;
  }
}

/** Fresh when no input changed (or vanished) since the build started. */
function isFresh(cache, pointer) {
  try {
    statSync(path.join(cache, pointer.dir, "main.mjs"));
    return pointer.inputs.every((input) => statSync(path.join(ROOT, input)).mtimeMs < pointer.builtAt);
  } catch {
    return false;
  }
}

function removeOldBuilds(cache, keep) {
  mkdirSync(cache, { recursive: true });
  for (const entry of readdirSync(cache)) {
    const match = /^build-(\d+)-\d+$/.exec(entry);
    if (!match || entry === keep || Date.now() - Number(match[1]) < KEEP_OLD_BUILDS_MS) continue;
    rmSync(path.join(cache, entry), { recursive: true, force: true });
  }
}
