import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";

/**
 * Runs `work` while this process holds the lock file at `lockPath` (created exclusively, holding its pid).
 * Another live holder: wait for it (`onWait` once), checking every `pollMs`. A holder that died: take its lock over.
 * `npm test`'s two sides (and the benches) may each ask for the build at once; one builds, the others wait.
 */
export async function withBuildLock<T>(
  lockPath: string,
  work: () => Promise<T>,
  options: { pollMs?: number; onWait?: () => void } = {},
): Promise<T> {
  let waited = false;
  while (!tryAcquire(lockPath)) {
    if (holderIsDead(lockPath)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (!waited) options.onWait?.();
    waited = true;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1_000));
  }
  try {
    return await work();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

function tryAcquire(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

function holderIsDead(lockPath: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lockPath, "utf8"));
  } catch {
    return false; // released meanwhile: the next attempt takes it
  }
  if (!Number.isInteger(pid) || pid <= 0) return false; // its holder is still writing its pid
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
