import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  affinityIfAlive,
  cpuTicks,
  getAffinity,
  mainThreadCpuTicks,
  processStartTime,
} from "@/tools/bench/cpu-affinity";

// bench-writers reads each PostgreSQL backend's affinity to put it back later; a backend that
// disconnects between the listing and the read must be skipped, not fail the bench (seen in CI).
describe("a process's CPU affinity, read by bench-writers", () => {
  it("reads a living process's list, and null for one that has ended", async () => {
    expect(await affinityIfAlive(process.pid)).toMatch(/^[0-9,-]+$/);
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid!;
    await expect(getAffinity(ended)).rejects.toThrow(/No such process|failed/);
    expect(await affinityIfAlive(ended)).toBeNull();
  });

  // The isolated placement tells a backend it moved from a process that took its pid later by this.
  it("reads a process's start time: later for a process started later, null once it has ended", async () => {
    const own = processStartTime(process.pid);
    expect(own).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 30)); // more than a clock tick (10 ms)
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"]);
    try {
      expect(processStartTime(child.pid!)).toBeGreaterThan(own!);
    } finally {
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));
    }
    expect(processStartTime(child.pid!)).toBeNull();
  });

  // ps -o psr reports the main thread's CPU, so the placement check counts a process as run only by its main
  // thread's ticks: a worker thread that spins while the main thread sleeps must not count (seen in CI).
  it("counts a process's main thread's CPU apart from its worker threads'", async () => {
    const spinner = [
      'const { Worker } = require("node:worker_threads");',
      'new Worker("const end = Date.now() + 20000; while (Date.now() < end);", { eval: true }).on("online", () => {',
      '  process.stdout.write("spinning\\n");',
      "  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);",
      "});",
    ].join("\n");
    const child = spawn(process.execPath, ["-e", spinner], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise((resolve) => child.stdout.once("data", resolve));
      await new Promise((resolve) => setTimeout(resolve, 100)); // the main thread settles into its wait
      const [process0, main0] = [cpuTicks(child.pid!)!, mainThreadCpuTicks(child.pid!)!];
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const [process1, main1] = [cpuTicks(child.pid!)!, mainThreadCpuTicks(child.pid!)!];
      expect(process1 - process0, "the worker's ticks count for the process").toBeGreaterThanOrEqual(10);
      expect(main1 - main0, "but not for its main thread").toBeLessThanOrEqual(2);
    } finally {
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));
    }
    expect(mainThreadCpuTicks(child.pid!)).toBeNull();
  });
});
