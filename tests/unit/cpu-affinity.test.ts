import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { affinityIfAlive, getAffinity } from "@/tools/bench/cpu-affinity";

// bench-writers reads each PostgreSQL backend's affinity to put it back later; a backend that
// disconnects between the listing and the read must be skipped, not fail the bench (seen in CI).
describe("a process's CPU affinity, read by bench-writers", () => {
  it("reads a living process's list, and null for one that has ended", async () => {
    expect(await affinityIfAlive(process.pid)).toMatch(/^[0-9,-]+$/);
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid!;
    await expect(getAffinity(ended)).rejects.toThrow(/No such process|failed/);
    expect(await affinityIfAlive(ended)).toBeNull();
  });
});
