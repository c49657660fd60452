import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import type { Db } from "@/lib/db/prisma";
import { bundledScript } from "../helpers/bundled-script";
import { idemNodeArgs } from "../helpers/idem-command";
import { expectInvariant, snapshot, type ClaimsOf, type Watched } from "./invariant";

/**
 * Kills a real process at each step of one mutation path and holds the invariant after each kill
 * and after the next run (docs/crash-tests.md). The child is plain Node (one process, nothing in
 * between to reach) with tests/crash/crash-point.ts preloaded; what it runs is JavaScript (the CLI's bundle, or
 * esbuild's bundles of call-route.ts and the route), since tsx's loader would double a child's CPU.
 */

/** The child's Node arguments after the preload (its script and the script's arguments), and its environment. */
export type ChildCommand = { args: string[]; env: Record<string, string> };

/** The CLI, as `npm run idem` runs it (under react-server, where "server-only" is empty). */
export function cliChild(args: string[], env: Record<string, string>): ChildCommand {
  return { args: [...idemNodeArgs(), ...args], env };
}

/** One POST to a route handler, in a child of its own (tests/crash/call-route.ts). */
export function routeChild(
  call: { module: string; params?: Record<string, string>; url: string; token: string; body: unknown },
  env: Record<string, string>,
): ChildCommand {
  const route = { params: {}, ...call, module: bundledScript(call.module) };
  return {
    args: [bundledScript("tests/crash/call-route.ts")],
    env: { ...env, IDEM_CRASH_ROUTE: JSON.stringify(route) },
  };
}
export type ChildResult = {
  killedAt: string | null;
  code: number | null;
  stdout: string;
  stderr: string;
  steps: string[];
};

const PRELOAD = path.resolve("tests/crash/crash-point.ts");

// tsx's loader hooks on every module a child imports doubled its CPU (1.6 → 3.3 s for the CLI's bundle).
const preloadArgs = (): string[] => ["--import", pathToFileURL(bundledScript(PRELOAD)).href];

export function runChild(command: ChildCommand, crashAt: string | null): Promise<ChildResult> {
  const dir = mkdtempSync(path.join(tmpdir(), "idem-crash-"));
  const logFile = path.join(dir, "steps.log");
  const child = spawn(process.execPath, [...preloadArgs(), ...command.args], {
    env: {
      ...process.env,
      IDEM_DEBUG: "",
      // One heartbeat write per hour: no timer's write lands between the steps a run counts.
      IDEM_JOB_HEARTBEAT: "1h",
      ...command.env,
      IDEM_CRASH_AT: crashAt ?? "",
      IDEM_CRASH_LOG: logFile,
    },
    // Its own process group, so the kill below reaches anything it started.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // the group is gone already
      }
      let steps: string[] = [];
      try {
        steps = readFileSync(logFile, "utf8").split("\n").filter(Boolean);
      } catch {
        // it died before its first step
      }
      rmSync(dir, { recursive: true, force: true });
      const killed = signal === "SIGKILL" ? (steps.at(-1)?.replace(/^killed /, "") ?? "before any step") : null;
      resolve({ killedAt: killed, code, stdout, stderr, steps });
    });
  });
}

/** Waits until no other session of this database is inside a transaction: a killed child's locks are gone. */
export async function waitForDeadSessions(db: Db): Promise<void> {
  await expect
    .poll(
      async () => {
        const [row] = await db.$queryRaw<{ n: bigint }[]>`
          SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`;
        return Number(row?.n ?? 0);
      },
      { timeout: 10_000, interval: 50 },
    )
    .toBe(0);
}

export type CrashKind = "before-commit" | "after-commit" | "before-call" | "during-call";

export type CrashPath = {
  db: Db;
  /** What to start; a function when the command depends on the fresh state (a key in a URL). */
  child: ChildCommand | (() => ChildCommand);
  /** The kinds of step to kill at, each at every N the uninterrupted run counted. */
  kinds: readonly CrashKind[];
  watched: readonly Watched[];
  claimsOf: ClaimsOf;
  /** A fresh starting state, the same each time (new keys are fine). */
  prepare(): Promise<void>;
  /** The next run that finishes what the killed one left (the same command again, or the reconcile or trim). */
  nextRun(): Promise<void>;
  /** Everything is done, exactly once: the path's own end state, and whatever the upstream counted. */
  expectDone(): Promise<void>;
  /** What the child printed, checked after each run (a reveal: nothing unmasked without its audit row). */
  checkChild?(result: ChildResult, point: string | null): Promise<void>;
};

export type CrashReport = {
  /** The uninterrupted run's steps, as crash-point.ts logged them ("commit 2 COMMIT", "call 1 GET …"). */
  steps: string[];
  /** Every point the child was killed at. */
  points: string[];
};

/**
 * First an uninterrupted run, which counts the steps (and is held to the invariant too). Then for
 * each kind, N = 1 … that count: a fresh start, the child killed at the Nth step of that kind, the
 * invariant over what it left; the next run, the invariant over both together (so nothing was
 * done twice), and the end state.
 */
export async function crashAtEveryStep(crashPath: CrashPath): Promise<CrashReport> {
  const command = () => (typeof crashPath.child === "function" ? crashPath.child() : crashPath.child);
  const verbose = (text: string) => process.env.IDEM_CRASH_VERBOSE && console.log(text);
  await crashPath.prepare();
  const first = await snapshot(crashPath.db, crashPath.watched);
  const census = await runChild(command(), null);
  verbose(`uninterrupted: ${census.steps.join("; ")}`);
  expect(census.code, `the uninterrupted run should finish\n${census.stdout}${census.stderr}`).toBe(0);
  await expectInvariant(crashPath.db, first, crashPath.watched, crashPath.claimsOf, "uninterrupted");
  await crashPath.checkChild?.(census, null);
  await crashPath.expectDone();
  const count = (what: "commit" | "call") => census.steps.filter((s) => s.startsWith(`${what} `)).length;

  const report: CrashReport = { steps: census.steps, points: [] };
  for (const kind of crashPath.kinds) {
    for (let n = 1; n <= count(kind.endsWith("commit") ? "commit" : "call"); n++) {
      const point = `${kind}:${n}`;
      await crashPath.prepare();
      const start = await snapshot(crashPath.db, crashPath.watched);
      const spawned = performance.now();
      const result = await runChild(command(), point);
      verbose(`${point}: ${result.killedAt ?? "finished"} in ${Math.round(performance.now() - spawned)} ms`);
      expect(result.killedAt, `${point} was not reached: the steps differ from the uninterrupted run's`).not.toBeNull();
      report.points.push(point);
      await waitForDeadSessions(crashPath.db);
      await expectInvariant(crashPath.db, start, crashPath.watched, crashPath.claimsOf, `killed ${point}`);
      await crashPath.checkChild?.(result, point);
      await crashPath.nextRun();
      await expectInvariant(
        crashPath.db,
        start,
        crashPath.watched,
        crashPath.claimsOf,
        `killed ${point}, then run again`,
      );
      await crashPath.expectDone();
    }
  }
  return report;
}
