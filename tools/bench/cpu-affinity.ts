import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A process's CPU affinity as taskset prints it ("0,1", "0-1", "1"). */
export async function getAffinity(pid: number): Promise<string> {
  const { stdout } = await run("taskset", ["-p", "-c", String(pid)]);
  // "pid 123's current affinity list: 0,1"
  return stdout.trim().split(":").pop()!.trim();
}

/** getAffinity, or null when the process ended before taskset read it (a backend that disconnected). */
export async function affinityIfAlive(pid: number): Promise<string | null> {
  try {
    return await getAffinity(pid);
  } catch (error) {
    if (!processExists(pid)) return null;
    throw error;
  }
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  return list.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map(Number);
    if (from === undefined || !Number.isInteger(from)) return [];
    return Array.from({ length: (to ?? from) - from + 1 }, (_, i) => from + i);
  });
}

/**
 * Sets the affinity of every thread of `pid` (taskset -a: node's libuv and V8 threads, not just the
 * main one). A process that ended meanwhile (a backend that disconnected) is skipped.
 */
export async function setAffinity(pid: number, cpus: string): Promise<boolean> {
  try {
    await run("taskset", ["-a", "-p", "-c", cpus, String(pid)]);
    return true;
  } catch (error) {
    if (!processExists(pid)) return false;
    throw error;
  }
}

/** The pid and every descendant of it (from /proc: a backend's parent is the postmaster). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid === null) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const visit = (pid: number) => {
    tree.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

/** The CPU each process last ran on (ps -o psr): where the scheduler actually put it. */
export async function cpusLastRunOn(pids: number[]): Promise<Map<number, number>> {
  const seen = new Map<number, number>();
  if (pids.length === 0) return seen;
  try {
    const { stdout } = await run("ps", ["-o", "pid=,psr=", "-p", pids.join(",")]);
    for (const line of stdout.trim().split("\n")) {
      const [pid, psr] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && psr !== undefined && Number.isFinite(psr)) seen.set(pid, psr);
    }
  } catch {
    // ps exits 1 when none of the pids still exists
  }
  return seen;
}

export function processExists(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

/** The process's command name (/proc/<pid>/comm), or null when it is gone. */
export function commandName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/** CPU time a process has used so far (utime + stime, clock ticks), or null when it is gone. */
export function cpuTicks(pid: number): number | null {
  return usedTicks(statFields(pid));
}

/** CPU time a process's main thread has used so far (its event loop, without worker threads), or null when it is gone. */
export function mainThreadCpuTicks(pid: number): number | null {
  return usedTicks(statFields(`${pid}/task/${pid}`));
}

/** utime + stime of a stat line's fields. */
function usedTicks(fields: string[] | null): number | null {
  return fields ? Number(fields[11]) + Number(fields[12]) : null;
}

/** When the process started, in clock ticks since boot (/proc/<pid>/stat field 22): with the pid, who it is. Null once gone. */
export function processStartTime(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? Number(fields[19]) : null;
}

function parentOf(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : null;
}

function statFields(pid: number | string): string[] | null {
  try {
    return statLineFields(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/**
 * A /proc/<pid>/stat line's fields after "pid (comm) ", the state (field 3 of proc(5)) at index 0: comm may hold
 * spaces and parentheses, so split after the last ')'.
 */
export function statLineFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
