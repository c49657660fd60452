import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withBuildLock } from "@/lib/build/build-lock";

// What lets npm test's two sides ask for the console's build at once: one builds, the other waits for it.
describe("withBuildLock", () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "idem-build-lock-"));
    lock = path.join(dir, "build.lock");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("a second caller waits until the first has finished, and says so once", async () => {
    const events: string[] = [];
    const waits: string[] = [];
    const holder = (name: string) => async () => {
      events.push(`${name} starts`);
      await sleep(300);
      events.push(`${name} ends`);
    };
    const first = withBuildLock(lock, holder("first"), { pollMs: 20, onWait: () => waits.push("first") });
    await sleep(50);
    const second = withBuildLock(lock, holder("second"), { pollMs: 20, onWait: () => waits.push("second") });
    await Promise.all([first, second]);
    expect(events).toEqual(["first starts", "first ends", "second starts", "second ends"]);
    expect(waits).toEqual(["second"]);
    expect(existsSync(lock), "released after the work").toBe(false);
  });

  it("takes over a lock whose holder died, without waiting", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    writeFileSync(lock, dead.stdout);
    let waited = false;
    const ran = await withBuildLock(lock, async () => "built", { pollMs: 20, onWait: () => (waited = true) });
    expect(ran).toBe("built");
    expect(waited).toBe(false);
  });

  it("releases the lock when the work fails", async () => {
    await expect(
      withBuildLock(lock, async () => {
        throw new Error("next build failed");
      }),
    ).rejects.toThrow("next build failed");
    expect(existsSync(lock)).toBe(false);
  });
});
