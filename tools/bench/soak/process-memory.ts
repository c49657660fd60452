import { readdirSync, readFileSync } from "node:fs";

/**
 * Resident memory in bytes of a process and all its descendants (`next start` serves from a
 * child process), from /proc/<pid>/status VmRSS. Null when the process is gone.
 */
export function residentBytesOfTree(rootPid: number): number | null {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === null) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const root = residentBytes(rootPid);
  if (root === null) return null;
  let total = root;
  const pending = [...(children.get(rootPid) ?? [])];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    total += residentBytes(pid) ?? 0;
    pending.push(...(children.get(pid) ?? []));
  }
  return total;
}

function parentOf(pid: number): number | null {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: read after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null; // exited meanwhile
  }
}

function residentBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return null;
  }
}
