import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEntry, pointerFile } from "../../scripts/cli-bundle.mjs";

// `npm run idem` runs the CLI from an esbuild bundle (scripts/idem.mjs): it must be rebuilt whenever a file it
// was built from changed, and reused otherwise. A cache of this file's own keeps the run's bundle out of it; it is
// under node_modules, as the real one is, so the bundle's imports of packages resolve.
mkdirSync(path.resolve("node_modules/.cache"), { recursive: true });
const cache = mkdtempSync(path.resolve("node_modules/.cache/idem-cli-test-"));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

type Pointer = { dir: string; builtAt: number; inputs: string[] };
const readPointer = () => JSON.parse(readFileSync(pointerFile(cache), "utf8")) as Pointer;
const rewritePointer = (change: (pointer: Pointer) => Pointer) =>
  writeFileSync(pointerFile(cache), JSON.stringify(change(readPointer())));

describe("the CLI's bundle", () => {
  it("is built from lib/cli/main.ts and what it imports, and runs as the CLI", async () => {
    const entry = await cliEntry(cache);
    const inputs = readPointer().inputs;
    expect(inputs).toContain("lib/cli/main.ts");
    expect(inputs).toContain("lib/cli/commands/key.ts");
    expect(inputs).toContain("tsconfig.json");
    const run = spawnSync(process.execPath, ["--conditions=react-server", entry, "key", "--help"], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: idem key/);
  });

  it("is reused while none of its inputs changed", async () => {
    const first = await cliEntry(cache);
    expect(await cliEntry(cache)).toBe(first);
  });

  it("is rebuilt when an input is newer than the build", async () => {
    const first = await cliEntry(cache);
    // As if every source had been edited after the build started.
    rewritePointer((pointer) => ({ ...pointer, builtAt: 0 }));
    const second = await cliEntry(cache);
    expect(second).not.toBe(first);
    expect(readPointer().builtAt).toBeGreaterThan(0);
  });

  it("is rebuilt when an input is gone", async () => {
    const first = await cliEntry(cache);
    rewritePointer((pointer) => ({ ...pointer, inputs: [...pointer.inputs, "lib/cli/commands/removed-since.ts"] }));
    expect(await cliEntry(cache)).not.toBe(first);
  });
});
