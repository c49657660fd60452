import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { runCli } from "../helpers/run-cli";

// Every command that reads idem.config.json says on stderr which file it loaded, or loudly that
// none was; beside a running demo it finds the demo's own file (issue #29). stdout stays JSON.
const url = inject("databaseUrl");
// A tool with no claims: the dry run is quick and asks nobody.
const RECONCILE = ["reconcile", "--dry-run", "--json", "--tool", "cli_config_test_tool"];

function dataDir(): string {
  return mkdtempSync(path.join(tmpdir(), "idem-cli-config-"));
}

function demoConfig(dir: string): string {
  const file = path.join(dir, "demo.idem.config.json");
  writeFileSync(file, JSON.stringify({ tools: { charge_card: { stuckAfter: "5m" } } }));
  return file;
}

async function reconcileWith(env: Record<string, string | undefined>) {
  const result = await runCli(RECONCILE, { DATABASE_URL: url, IDEM_CONFIG: undefined, ...env });
  expect(result.code, result.stderr).toBe(0);
  // Machine-readable: the notice never reaches stdout.
  expect(JSON.parse(result.stdout)).toMatchObject({ dryRun: true, candidates: 0 });
  return result.stderr;
}

describe("which idem.config.json the CLI loaded", () => {
  it("none: a warning on stderr that no file was loaded and where it looked", { timeout: 60_000 }, async () => {
    const stderr = await reconcileWith({ IDEM_DATA_DIR: dataDir() });
    expect(stderr).toMatch(
      /^idem config: WARNING no configuration file loaded \(IDEM_CONFIG is unset, idem\.config\.json does not exist and no demo is running; copy idem\.config\.example\.json/m,
    );
    expect(stderr).toContain("No tool has a processor to ask");
  });

  it("beside a running demo: the demo's own file, named", { timeout: 60_000 }, async () => {
    const dir = dataDir();
    const file = demoConfig(dir);
    // This test's process stands in for the demo launcher (lib/cli/demo-launch.ts writes the same record).
    writeFileSync(
      path.join(dir, "demo.json"),
      JSON.stringify({ pid: process.pid, configFile: file, startedAt: new Date().toISOString() }),
    );
    const stderr = await reconcileWith({ IDEM_DATA_DIR: dir });
    expect(stderr).toContain(`idem config: ${file} (written by the running demo (pid ${process.pid}))`);
  });

  it("a stopped demo's file is not used, and the warning names it", { timeout: 60_000 }, async () => {
    const dir = dataDir();
    const file = demoConfig(dir);
    writeFileSync(
      path.join(dir, "demo.json"),
      JSON.stringify({ pid: 2 ** 22 + 17, configFile: file, startedAt: new Date().toISOString() }),
    );
    const stderr = await reconcileWith({ IDEM_DATA_DIR: dir });
    expect(stderr).toContain("WARNING no configuration file loaded");
    expect(stderr).toContain(`a stopped demo left ${file}`);
  });

  it("IDEM_CONFIG: that file, named, on every command that reads it", { timeout: 120_000 }, async () => {
    const file = demoConfig(dataDir());
    const stderr = await reconcileWith({ IDEM_CONFIG: file });
    expect(stderr).toContain(`idem config: ${file} (named by IDEM_CONFIG)`);
    // verify-tool by the same rule (a server the file does not name: refused, after saying which file).
    const verify = await runCli(["verify-tool", "--server", "nowhere", "--tool", "charge_card", "--args", "{}"], {
      DATABASE_URL: url,
      IDEM_CONFIG: file,
    });
    expect(verify.code, verify.stderr).toBe(2);
    expect(verify.stderr).toContain(`idem config: ${file} (named by IDEM_CONFIG)`);
  });
});
