import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { getAffinity } from "@/tools/bench/cpu-affinity";
import { createCpuPlacement } from "@/tools/bench/writer-placement";

// A stand-in postmaster: forks a `sleep` child for each line it reads and prints the child's pid.
const FORKER = `
const { spawn } = require("node:child_process");
require("node:readline").createInterface({ input: process.stdin }).on("line", () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  process.stdout.write(child.pid + "\\n");
});`;

const started: ChildProcess[] = [];
const forked: number[] = [];
const sleeper = () => {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  started.push(child);
  return child.pid!;
};

afterAll(() => {
  for (const child of started) child.kill();
  for (const pid of forked) process.kill(pid);
});

// bench-writers' isolated placement moves the console's backends while the check reads every
// PostgreSQL process's affinity: a backend moved during that read was once counted as the database's (CI).
describe.skipIf(os.cpus().length < 2)("bench-writers' isolated placement", () => {
  it("checks between two moves: a backend moved meanwhile never counts as the database's", async () => {
    const postmaster = spawn(process.execPath, ["-e", FORKER], { stdio: ["pipe", "pipe", "inherit"] });
    started.push(postmaster);
    const pids = createInterface({ input: postmaster.stdout! })[Symbol.asyncIterator]();
    const fork = async () => {
      postmaster.stdin!.write("\n");
      const pid = Number((await pids.next()).value);
      forked.push(pid);
      return pid;
    };
    // Enough processes that reading each one's affinity takes several of the follower's 20 ms sweeps.
    const backends: number[] = [];
    for (let i = 0; i < 40; i += 1) backends.push(await fork());
    const consoleBackends: number[] = [];
    const placement = await createCpuPlacement(
      { postmaster: postmaster.pid!, writer: sleeper(), console: sleeper(), self: sleeper() },
      async () => consoleBackends,
    );
    await placement.pin("isolated");
    try {
      // A console backend opens just as the check begins: the follower moves it within 20 ms.
      consoleBackends.push(await fork());
      const check = await placement.check();
      expect(check.database.pids).toBeGreaterThanOrEqual(41);
      expect(check.database.affinity).toEqual([placement.databaseCpus]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await getAffinity(consoleBackends[0]!)).toBe(placement.consoleCpus);
      expect((await placement.check()).consoleBackends?.affinity).toEqual([placement.consoleCpus]);
    } finally {
      await placement.restore();
    }
    expect(await getAffinity(backends[0]!)).toBe(await getAffinity(postmaster.pid!));
  });
});
