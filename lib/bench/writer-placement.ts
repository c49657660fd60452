import { execFileSync } from "node:child_process";
import os from "node:os";
import type pg from "pg";
import {
  commandName,
  cpuTicks,
  cpusLastRunOn,
  getAffinity,
  parseCpuList,
  processExists,
  processTree,
  setAffinity,
} from "./cpu-affinity";

/**
 * Where the bench's processes run. `pinned`: PostgreSQL (the postmaster and every process forked
 * from it — backends inherit the postmaster's affinity when forked) and the writer on the first
 * half of the CPUs, the console server and the bench's own process (the load generator and the lock
 * sampler's client side) on the other half. `shared`: every process as it was, on every CPU.
 */
export type Placement = "pinned" | "shared";

export type ProcessGroups = { postmaster: number; writer: number; console: number; self: number };

/**
 * `cpusSeen`: where the group's processes that used CPU since pin() last ran (ps -o psr); a process
 * asleep since before the pinning still shows the CPU it slept on, so it is left out (`idle`).
 */
export type GroupCheck = { pids: number; idle: number; affinity: string[]; cpusSeen: number[] };
export type PlacementCheck = { database: GroupCheck; writer: GroupCheck; console: GroupCheck; load: GroupCheck };

export type CpuPlacement = {
  databaseCpus: string;
  consoleCpus: string;
  pin(): Promise<void>;
  /** Every process back on the affinity it had before pin(); new PostgreSQL backends get the postmaster's. */
  restore(): Promise<void>;
  /** The affinity each group's processes report now (taskset -p) and the CPUs they last ran on (ps -o psr). */
  check(): Promise<PlacementCheck>;
};

/**
 * The postmaster's pid, when PostgreSQL runs on this host and can be pinned from here: read from
 * postmaster.pid in the data directory (pg_read_file: superuser or pg_read_server_files), then
 * checked to be a postgres process in this pid namespace. A string says why pinning is unavailable.
 */
export async function findPostmaster(client: pg.Client): Promise<number | string> {
  if (os.cpus().length < 2) return "one CPU: nothing to pin apart";
  let pid: number;
  try {
    const { rows } = await client.query<{ pid: string }>(
      `SELECT split_part(pg_read_file('postmaster.pid'), E'\\n', 1) AS pid`,
    );
    pid = Number(rows[0]?.pid);
  } catch (error) {
    return `cannot read postmaster.pid through the connection (${error instanceof Error ? error.message : String(error)})`;
  }
  const name = Number.isInteger(pid) ? commandName(pid) : null;
  if (name !== "postgres" && name !== "postmaster")
    return `postmaster pid ${pid} is not a postgres process on this host (PostgreSQL runs elsewhere or in another pid namespace)`;
  // Restoring puts back what pin() found: found already narrowed (another bench-writers pinning now), it would stay so.
  const mask = await getAffinity(pid);
  if (parseCpuList(mask).length !== os.cpus().length)
    return `the postmaster is already limited to CPU ${mask} (another bench-writers pinning it?): not pinning over it`;
  return pid;
}

export async function createCpuPlacement(groups: ProcessGroups): Promise<CpuPlacement> {
  const cpus = os.cpus().length;
  const half = Math.floor(cpus / 2);
  const databaseCpus = half === 1 ? "0" : `0-${half - 1}`;
  const consoleCpus = half === cpus - 1 ? String(half) : `${half}-${cpus - 1}`;
  const original = new Map<number, string>();
  const ticksAtPin = new Map<number, number>();
  const postmasterMask = await getAffinity(groups.postmaster);
  const members = () => ({
    database: processTree(groups.postmaster),
    writer: [groups.writer],
    console: processTree(groups.console),
    load: [groups.self],
  });
  const remember = async (pids: number[]) => {
    for (const pid of pids) if (!original.has(pid) && processExists(pid)) original.set(pid, await getAffinity(pid));
  };
  const restoreSync = () => {
    for (const pid of processTree(groups.postmaster))
      try {
        execFileSync("taskset", ["-a", "-p", "-c", original.get(pid) ?? postmasterMask, String(pid)], {
          stdio: "ignore",
        });
      } catch {
        // gone meanwhile
      }
  };
  // Ctrl-C during a pinned phase must not leave every PostgreSQL backend on one core.
  const onSignal = (signal: NodeJS.Signals) => {
    restoreSync();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  return {
    databaseCpus,
    consoleCpus,
    async pin() {
      const m = members();
      await remember([...m.database, ...m.writer, ...m.console, ...m.load]);
      for (const pid of [...m.database, ...m.writer, ...m.console, ...m.load]) ticksAtPin.set(pid, cpuTicks(pid) ?? 0);
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      for (const pid of [...m.database, ...m.writer]) await setAffinity(pid, databaseCpus);
      for (const pid of [...m.console, ...m.load]) await setAffinity(pid, consoleCpus);
    },
    async restore() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      const m = members();
      for (const pid of m.database) await setAffinity(pid, original.get(pid) ?? postmasterMask);
      for (const pid of [...m.writer, ...m.console, ...m.load]) {
        const mask = original.get(pid);
        if (mask) await setAffinity(pid, mask);
      }
    },
    async check() {
      const m = members();
      const group = async (pids: number[]): Promise<GroupCheck> => {
        const affinity = new Set<string>();
        for (const pid of pids) if (processExists(pid)) affinity.add(await getAffinity(pid).catch(() => "gone"));
        affinity.delete("gone");
        const ran = pids.filter((pid) => (cpuTicks(pid) ?? 0) > (ticksAtPin.get(pid) ?? -1));
        const seen = await cpusLastRunOn(ran);
        return {
          pids: pids.length,
          idle: pids.length - ran.length,
          affinity: [...affinity].sort(),
          cpusSeen: [...new Set(seen.values())].sort((a, b) => a - b),
        };
      };
      return {
        database: await group(m.database),
        writer: await group(m.writer),
        console: await group(m.console),
        load: await group(m.load),
      };
    },
  };
}
