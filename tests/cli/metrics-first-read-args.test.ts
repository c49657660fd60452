import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port";
import { tsxNodeArgs } from "../helpers/idem-command";

// tools/bench/metrics-first-read.ts refuses a bad argument in one line, exit 2, before it makes a database. Its
// DATABASE_URL names a port nothing listens on: a run that reached for a database would fail there instead (exit 1,
// "connect ECONNREFUSED"). Counting the server's bench databases before and after raced the bench files that run
// beside this one.
describe("the first-metrics-read bench's arguments", () => {
  it.each([
    [["abc"], "tenants: expected a whole number from 1 to 100,000."],
    [["0"], "tenants: expected a whole number from 1 to 100,000."],
    [["20", "-1"], "tools: expected a whole number from 1 to 100."],
    [["20", "5", "1.5"], "warm reads: expected a whole number from 1 to 10,000."],
    [["1", "2", "3", "4"], "expected at most 3 arguments, got 4."],
  ])("%j: exit 2 naming the argument, before it reaches for a database", async (args, message) => {
    const nowhere = `postgresql://postgres@127.0.0.1:${await freePort()}/postgres`;
    const run = spawnSync(
      process.execPath,
      ["--conditions=react-server", ...tsxNodeArgs("tools/bench/metrics-first-read.ts"), ...args],
      { encoding: "utf8", env: { ...process.env, DATABASE_URL: nowhere } },
    );
    expect(run.stderr.trim()).toBe(`metrics-first-read: ${message}`);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
  });
});
