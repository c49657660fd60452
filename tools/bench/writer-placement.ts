import { execFileSync } from "node:child_process";
import os from "node:os";
import pLimit from "p-limit";
import type pg from "pg";
import {
  commandName,
  mainThreadCpuTicks,
  cpusLastRunOn,
  affinityIfAlive,
  getAffinity,
  parseCpuList,
  processExists,
  processStartTime,
  processTree,
  setAffinity,
} from "./cpu-affinity";

/**
 * Where the bench's processes run. `pinned`: PostgreSQL (the postmaster and every process forked
 * from it — backends inherit the postmaster's affinity when forked) and the writer on the first
 * half of the CPUs, the console server and the bench's own process (the load generator and the lock
 * sampler's client side) on the other half. The console's SQL then still runs on the writers' CPUs,
 * in the PostgreSQL backends that serve it. `isolated`: as pinned, and those backends too (told by
 * their application_name) on the console's half — what is left between the writers and the console
 * is the database itself (buffers, WAL, I/O, locks), not CPU; on one host it stands for the console
 * reading a replica on its own machine. `shared`: every process as it was, on every CPU.
 */
export type Placement = "pinned" | "isolated" | "shared";

/** Pinning modes of createCpuPlacement().pin(). */
export type PinMode = Exclude<Placement, "shared">;

/** How often the isolated placement looks for console backends to move (a pool opens one now and then; a parallel query forks workers). */
const FOLLOW_CONSOLE_BACKENDS_MS = 20;

/**
 * After pinning the postmaster, when to look again for children that kept the old affinity: a fork
 * copies its parent's mask when it begins, and on a loaded machine may show in /proc only later.
 */
const LATE_FORK_LOOKS_MS = [0, 100, 400];

export type ProcessGroups = { postmaster: number; writer: number; console: number; self: number };

/**
 * `cpusSeen`: where the group's processes that used CPU since pin() last ran (ps -o psr); a process
 * asleep since before the pinning still shows the CPU it slept on, so it is left out (`idle`). psr is
 * the main thread's CPU, so "used CPU" is the main thread's too: a process whose other threads ran
 * (GC, the export's worker) while its main thread slept would show a stale CPU.
 */
export type GroupCheck = { pids: number; idle: number; affinity: string[]; cpusSeen: number[] };
export type PlacementCheck = {
  /** PostgreSQL's processes but the console's backends (all of them in the pinned placement). */
  database: GroupCheck;
  writer: GroupCheck;
  console: GroupCheck;
  load: GroupCheck;
  /** The console's backends, moved to the console's CPUs (isolated placement only). */
  consoleBackends: GroupCheck | null;
};

export type CpuPlacement = {
  databaseCpus: string;
  consoleCpus: string;
  pin(mode: PinMode): Promise<void>;
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

/**
 * `consoleBackends`: the pids of the PostgreSQL backends serving the console now (the isolated
 * placement moves them, and every one opened later, to the console's CPUs).
 */
export async function createCpuPlacement(
  groups: ProcessGroups,
  consoleBackends: () => Promise<number[]>,
): Promise<CpuPlacement> {
  const cpus = os.cpus().length;
  const half = Math.floor(cpus / 2);
  const databaseCpus = half === 1 ? "0" : `0-${half - 1}`;
  const consoleCpus = half === cpus - 1 ? String(half) : `${half}-${cpus - 1}`;
  const original = new Map<number, string>();
  const ticksAtPin = new Map<number, number>();
  const postmasterMask = await getAffinity(groups.postmaster);
  // pid → its start time (/proc/<pid>/stat): a pid a moved backend left and a new process took is not the console's.
  const moved = new Map<number, number | null>();
  let following: ConsoleBackendFollower | null = null;
  const members = () => ({
    database: processTree(groups.postmaster).filter((pid) => !moved.has(pid)),
    writer: [groups.writer],
    console: processTree(groups.console),
    load: [groups.self],
  });
  const remember = async (pids: number[]) => {
    for (const pid of pids) {
      if (original.has(pid)) continue;
      // A backend may disconnect between the listing and the read (seen in CI): nothing is left to put back.
      const mask = await affinityIfAlive(pid);
      if (mask !== null) original.set(pid, mask);
    }
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
    async pin(mode) {
      moved.clear();
      const m = members();
      await remember([...m.database, ...m.writer, ...m.console, ...m.load]);
      for (const pid of [...m.database, ...m.writer, ...m.console, ...m.load])
        ticksAtPin.set(pid, mainThreadCpuTicks(pid) ?? 0);
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      for (const pid of [...m.database, ...m.writer]) await setAffinity(pid, databaseCpus);
      // A backend forked after the listing above but before the postmaster was pinned kept every CPU
      // (seen once in CI, on a busy server); so may one whose fork began before the pin and shows in
      // /proc only after a first look. More looks, now that new forks inherit the writers' CPUs.
      const pinned = new Set(m.database);
      for (const wait of LATE_FORK_LOOKS_MS) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        const late = processTree(groups.postmaster).filter((pid) => !pinned.has(pid));
        // Forked from the pinned postmaster, its mask now is the pin's: what it goes back to is the postmaster's before.
        for (const pid of late) if (!original.has(pid)) original.set(pid, postmasterMask);
        for (const pid of late) {
          pinned.add(pid);
          ticksAtPin.set(pid, mainThreadCpuTicks(pid) ?? 0);
          await setAffinity(pid, databaseCpus);
        }
      }
      for (const pid of [...m.console, ...m.load]) await setAffinity(pid, consoleCpus);
      if (mode === "isolated") following = await followConsoleBackends(consoleBackends, consoleCpus, moved, ticksAtPin);
    },
    async restore() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      await following?.stop();
      following = null;
      const m = members();
      for (const pid of [...m.database, ...moved.keys()])
        if (processExists(pid)) await setAffinity(pid, original.get(pid) ?? postmasterMask);
      // A backend forked after that listing but before the postmaster was put back inherited the pin.
      const putBack = new Set([...m.database, ...moved.keys()]);
      for (const pid of processTree(groups.postmaster))
        if (!putBack.has(pid) && processExists(pid)) await setAffinity(pid, original.get(pid) ?? postmasterMask);
      moved.clear();
      for (const pid of [...m.writer, ...m.console, ...m.load]) {
        const mask = original.get(pid);
        if (mask) await setAffinity(pid, mask);
      }
    },
    async check() {
      // Not mid-sweep: a backend whose move is done but not yet recorded in `moved` would count as the database's.
      return following ? following.between(checkNow) : checkNow();
    },
  };
  async function checkNow(): Promise<PlacementCheck> {
    const m = members();
    const group = async (pids: number[]): Promise<GroupCheck> => {
      const affinity = new Set<string>();
      for (const pid of pids) if (processExists(pid)) affinity.add(await getAffinity(pid).catch(() => "gone"));
      affinity.delete("gone");
      const ran = pids.filter((pid) => (mainThreadCpuTicks(pid) ?? 0) > (ticksAtPin.get(pid) ?? -1));
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
      consoleBackends: following
        ? await group([...moved].filter(([pid, started]) => processStartTime(pid) === started).map(([pid]) => pid))
        : null,
    };
  }
}

type ConsoleBackendFollower = {
  stop: () => Promise<void>;
  /** Runs `task` between two sweeps, none in flight. */
  between: <T>(task: () => Promise<T>) => Promise<T>;
};

/**
 * Moves the console's backends to `cpus` now and, until stopped, every FOLLOW_CONSOLE_BACKENDS_MS
 * the ones opened since; `moved` collects them (restore() puts them back with the rest).
 */
async function followConsoleBackends(
  consoleBackends: () => Promise<number[]>,
  cpus: string,
  moved: Map<number, number | null>,
  ticksAtPin: Map<number, number>,
): Promise<ConsoleBackendFollower> {
  let failure: unknown = null;
  // Sweeps and between() tasks run one at a time, in order.
  const serially = pLimit(1);
  const sweep = async () => {
    for (const pid of await consoleBackends()) {
      const started = processStartTime(pid);
      // A pid seen before is the same backend only with the same start time: a new one that took it is moved too.
      if (moved.has(pid) && moved.get(pid) === started) continue;
      if (!(await setAffinity(pid, cpus))) continue;
      // What it ran before the move was on the writers' CPUs (a backend pinned with PostgreSQL a moment
      // ago, a parallel worker just forked): the check counts only what it ran since.
      ticksAtPin.set(pid, mainThreadCpuTicks(pid) ?? 0);
      moved.set(pid, started);
    }
  };
  await serially(sweep);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_CONSOLE_BACKENDS_MS));
      if (!stopped) await serially(sweep).catch((error: unknown) => (failure ??= error));
    }
  })();
  return {
    between: (task) => serially(task),
    async stop() {
      stopped = true;
      await loop;
      // A placement that silently stopped moving backends would be reported as isolated when it was not.
      if (failure) throw new Error(`moving the console's backends: ${String(failure)}`);
    },
  };
}
