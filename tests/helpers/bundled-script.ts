import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";

/** Inside the repository, so that a bundle's packages resolve to node_modules; `npm ci` starts it afresh. */
const CACHE = path.resolve("node_modules/.cache/idem-test-scripts");
const built = new Map<string, string>();

/**
 * A TypeScript script as one JavaScript file: what it imports from this repository bundled, packages
 * left in node_modules. Built from the current sources once per test process, so it is never stale.
 * A child started from it skips tsx's loader hooks, which cost 0.7–1.7 CPU s a start
 * (docs/test-time.md, "Stop 50"). Named by its content's hash: test processes share one file, and a
 * process starting meanwhile never reads half of one.
 */
export function bundledScript(script: string): string {
  let file = built.get(script);
  if (!file) {
    const result = buildSync({
      entryPoints: [path.resolve(script)],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      write: false,
      logLevel: "error",
    });
    const code = result.outputFiles[0]!.contents;
    const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
    file = path.join(CACHE, `${path.basename(script, ".ts")}-${hash}.mjs`);
    if (!existsSync(file)) {
      mkdirSync(CACHE, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, code);
      renameSync(partial, file);
    }
    built.set(script, file);
  }
  return file;
}
