import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { affinityIfAlive, getAffinity, processStartTime } from "@/tools/bench/cpu-affinity";

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
});
