import { describe, expect, it } from "vitest";
import { cpuSecondsOf, processKind } from "@/tools/bench/process-kind";
import { SAMPLER_USAGE, samplerArgs } from "@/tools/bench/sampler-args";

describe("what a process is, for the CPU-by-process sampler", () => {
  it("names the suite's processes by their command lines, and leaves the rest to the machine", () => {
    const kinds = [
      "/usr/lib/chromium/chromium-headless-shell --type=renderer --headless=old --no-sandbox",
      "/proc/self/exe --type=utility --utility-sub-type=network.mojom.NetworkService --lang=en-US",
      "/usr/bin/node --experimental-import-meta-resolve --require /w/node_modules/vitest/suppress-warnings.cjs --conditions node",
      "/usr/bin/node /w/node_modules/vitest/vitest.mjs run --project browser",
      "/usr/bin/node --conditions=react-server /w/scripts/idem.mjs demo --port 30718",
      "/usr/bin/node --import file:///w/node_modules/.cache/idem-test-scripts/crash-point-1.mjs /w/node_modules/.cache/idem-test-scripts/call-route-2.mjs",
      "/usr/bin/node --conditions=react-server /w/node_modules/.cache/idem-cli/build-1-2/history-worker.mjs",
      "/usr/bin/node /w/node_modules/next/dist/bin/next start -p 20314 -H 127.0.0.1",
      "/usr/bin/node /w/node_modules/next/dist/bin/next build",
      "postgres: 15/main: postgres idem_test_1_a 127.0.0.1(36660) idle",
      "kdamond.0",
    ].map(processKind);
    expect(kinds).toEqual([
      "Chromium",
      "Chromium",
      "vitest's workers (the tests, and what they call in-process)",
      "vitest's main processes",
      "the CLI (its commands, the demo and serve launchers with their embedded database)",
      "test children and fixture servers (bundled or tsx)",
      "the demo history's workers (MCP clients and the shop's servers)",
      "next start",
      "next build",
      "PostgreSQL",
      "not the tests' (kernel threads, the machine's services)",
    ]);
  });

  it("reads utime + stime after the last ')', whatever the process's name holds", () => {
    // pid (name) state, then fields 4 … 22: utime (14) 250 and stime (15) 50 ticks, starttime (22) 777.
    const fields = ["S", ...Array.from({ length: 10 }, () => "0"), "250", "50", "0", "0", "0", "0", "0", "0", "777"];
    const read = cpuSecondsOf(`4242 (a) b) c) ${fields.join(" ")}`);
    expect(read).toEqual({ seconds: 3, startTicks: "777", name: "a) b) c" });
  });
});

describe("the CPU sampler's arguments", () => {
  it("takes the command after --, and --every-ms before it", () => {
    expect(samplerArgs(["--", ".ci/run"])).toEqual({ everyMs: 500, command: ".ci/run", commandArgs: [] });
    expect(samplerArgs(["--every-ms", "200", "--", "npm", "test"])).toEqual({
      everyMs: 200,
      command: "npm",
      commandArgs: ["test"],
    });
  });

  it("refuses a missing command, an unknown option and an interval it cannot keep", () => {
    const refusals = [
      [],
      [".ci/run"],
      ["--"],
      ["--every", "200", "--", "x"],
      ["--every-ms", "--", "x"],
      ["--every-ms", "10", "--", "x"],
      ["--every-ms", "1.5e2x", "--", "x"],
    ].map((args) => {
      const parsed = samplerArgs(args);
      return "refusal" in parsed ? parsed.refusal.split("\n")[0] : "accepted";
    });
    expect(refusals).toEqual([
      SAMPLER_USAGE,
      SAMPLER_USAGE,
      SAMPLER_USAGE,
      "unknown option --every",
      "--every-ms: a whole number of milliseconds, 50 or more",
      "--every-ms: a whole number of milliseconds, 50 or more",
      "--every-ms: a whole number of milliseconds, 50 or more",
    ]);
  });
});
