import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, it } from "vitest";

// The rooms and doors of .dependency-cruiser.cjs (and its runtime half) checked inside `npm test`:
// the same command as `npm run lint:deps`, so a new folder cycle, a route that opens lib/db, or a
// component that reaches server-only code fails the suite with the offending import chain.
const root = path.resolve(import.meta.dirname, "../..");
const depcruise = path.join(root, "node_modules/.bin/depcruise");
const CRUISED = ["lib", "app", "components", "tools", "packages/guard/src", "proxy.ts", "instrumentation.ts"];

async function violations(config: string): Promise<string> {
  try {
    await promisify(execFile)(depcruise, [...CRUISED, "--config", config, "--output-type", "err"], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    });
    return "";
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return failed.stdout || failed.stderr || failed.message;
  }
}

// Concurrent: each configuration is a depcruise process of its own that parses the whole tree.
// The timeouts only catch a hang: on 2 cores shared with other builds, one has taken nearly 3 minutes.
describe.concurrent("dependency rules", () => {
  it(
    "keeps the rooms: no folder or module cycle, no forbidden door (type imports included)",
    { timeout: 600_000 },
    async ({ expect }) => {
      expect(await violations(".dependency-cruiser.cjs")).toBe("");
    },
  );

  it(
    "keeps server code out of components at run time (server-only, Prisma)",
    { timeout: 600_000 },
    async ({ expect }) => {
      expect(await violations(".dependency-cruiser-runtime.cjs")).toBe("");
    },
  );
});
