import { readFileSync } from "node:fs";
import path from "node:path";

const PACKAGE_NAME = "idem-console";

/**
 * The repository's root directory. Found from this module's own place, which is lib/build/ when run
 * from source (tsx, vitest) and the CLI bundle's directory under node_modules/.cache otherwise, so a
 * path next to a source file is named from the root, never from `import.meta.url`.
 */
export function sourceRoot(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string };
      if (manifest.name === PACKAGE_NAME) return dir;
    } catch {
      // no package.json here: go up
    }
    if (path.dirname(dir) === dir) throw new Error(`no ${PACKAGE_NAME} package.json above ${import.meta.dirname}`);
  }
}

/** A file of the repository by its path from the root, e.g. `sourcePath("tools/bench/writer-process.ts")`. */
export function sourcePath(relative: string): string {
  return path.join(sourceRoot(), relative);
}
