import "server-only";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { migrate } from "@/lib/db/migrate";
import { createProgressBar } from "@/lib/terminal/progress";
import { startBenchServer } from "@/tools/bench/bench-server";
import { loadBenchData } from "@/tools/bench/load-bench-data";
import { summariseTail } from "@/tools/bench/percentiles";
import { buildBenchSearchIndexes } from "@/tools/bench/run-bench";
import { startHangingProcessor } from "./hanging-processor";
import { judgeFlat, type FlatJudgement } from "./soak-flat";
import { checkInvariants, settleJobRuns, type InvariantResult, type JobRunCounts } from "./soak-invariants";
import { startSoakLoad, type Failure } from "./soak-load";
import { REQUEST_MIX } from "./soak-requests";
import { takeSample, type SoakSample } from "./soak-sample";
import { createSoakCluster, type RestartMode } from "./soak-cluster";
import { prepareSoakTargets, type SoakTargets } from "./soak-targets";

export type SoakOptions = {
  minutes: number;
  restartEveryMs: number;
  hangEveryMs: number;
  hangForMs: number;
  users: number;
  rows: number;
  sampleEveryMs: number;
  log: (line: string) => void;
};

export type SoakReport = {
  startedAt: string;
  machine: { cpus: number; cpuModel: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  options: Omit<SoakOptions, "log">;
  samples: SoakSample[];
  /** Route class → status label → count, over the whole run. */
  totals: Record<string, Record<string, number>>;
  latency: Record<string, { n: number; p50Ms: number; p99Ms: number; maxMs: number }>;
  restarts: Array<{ atSeconds: number; mode: RestartMode; tookMs: number }>;
  hangs: Array<{ atSeconds: number; forSeconds: number }>;
  processor: { answered: number; hung: number };
  flat: FlatJudgement[];
  jobs: JobRunCounts;
  invariants: InvariantResult[];
  failedRequests: Failure[];
  /** Why the run fails, one sentence each; empty: it passed. */
  failures: string[];
};

/** Stuck claims the soak adds to act on, and completed records it may allow to repeat. */
const STUCK_CLAIMS = 6_000;
const SWEPT_CLAIMS = 2_000;
const COMPLETED_TARGETS = 2_000;
/** After a restart, requests that fail while the console's pools reconnect are the restart's. */
const RECONNECT_GRACE_MS = 10_000;
/** A job run beats every 2 s in the soak, so one a restart cut off reads "did not finish" 12 s later. */
const JOB_HEARTBEAT = "2s";

/**
 * The soak (docs/bench.md#soak): a PostgreSQL cluster of its own, seeded like the bench; the
 * production console against it; `users` users of mixed API and page load for `minutes`; the
 * database restarted every `restartEveryMs` (fast, the middle one immediate) and the processor
 * hanging for `hangForMs` every `hangEveryMs`; a sample every `sampleEveryMs`; the invariants at the end.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { log } = options;
  const durationMs = options.minutes * 60_000;
  const startedAt = new Date().toISOString();
  const loadAverageAtStart = os.loadavg().map((l) => Math.round(l * 10) / 10);
  const cluster = await createSoakCluster();
  log(`soak cluster: PostgreSQL 15 on port ${cluster.port} (${cluster.dataDir})`);
  const processor = await startHangingProcessor();
  try {
    await migrate(cluster.url);
    const load = await loadBenchData(cluster.url, options.rows, createProgressBar());
    await buildBenchSearchIndexes(cluster.url);
    log(`seeded ${load.rows.toLocaleString("en-US")} claims and ${load.events.toLocaleString("en-US")} events`);
    const targets = await prepareSoakTargets(cluster.url, {
      stuck: STUCK_CLAIMS,
      swept: SWEPT_CLAIMS,
      completed: COMPLETED_TARGETS,
    });

    log("starting the production console (building first if the build is stale)…");
    const server = await startBenchServer(cluster.url, log, {
      processorUrl: processor.url,
      environment: { IDEM_JOB_HEARTBEAT: JOB_HEARTBEAT },
    });
    try {
      await warmUp(server, targets);
      const restartTimes = multiplesBelow(options.restartEveryMs, durationMs);
      const immediateAt = Math.floor(restartTimes.length / 2);
      const restarts: SoakReport["restarts"] = [];
      const restartWindows: Array<[number, number]> = [];
      const hangs: SoakReport["hangs"] = [];
      let events: string[] = [];

      const begin = performance.now();
      const restartedDuring = (from: number, to: number) =>
        restartWindows.some(([start, end]) => from <= end + RECONNECT_GRACE_MS && to >= start);
      const soakLoad = startSoakLoad(server, targets, options.users, restartedDuring);

      let restarting: Promise<void> = Promise.resolve();
      const timers = [
        ...restartTimes.map((at, n) =>
          setTimeout(() => {
            const mode: RestartMode = n === immediateAt ? "immediate" : "fast";
            const started = performance.now();
            const window: [number, number] = [started, Number.POSITIVE_INFINITY];
            restartWindows.push(window);
            restarting = restarting.then(async () => {
              await cluster.restart(mode);
              window[1] = performance.now();
              const tookMs = Math.round(window[1] - started);
              restarts.push({ atSeconds: Math.round((started - begin) / 1000), mode, tookMs });
              events.push(`restart ${mode} (${(tookMs / 1000).toFixed(1)} s)`);
            });
          }, at),
        ),
        ...multiplesBelow(options.hangEveryMs, durationMs).map((at) =>
          setTimeout(() => {
            processor.hang(options.hangForMs);
            hangs.push({ atSeconds: Math.round(at / 1000), forSeconds: Math.round(options.hangForMs / 1000) });
            events.push(`processor hangs ${Math.round(options.hangForMs / 1000)} s`);
          }, at),
        ),
      ];

      const samples: SoakSample[] = [];
      const sampleOnce = async () => {
        const taken = events;
        events = [];
        const sample = await takeSample(
          (performance.now() - begin) / 1000,
          soakLoad.takeWindow(),
          server.pid,
          cluster.url,
          taken,
        );
        samples.push(sample);
        log(sampleLine(sample, targets.left()));
      };
      let sampling: Promise<void> = Promise.resolve();
      const sampler = setInterval(() => {
        sampling = sampling.then(sampleOnce);
      }, options.sampleEveryMs);

      await new Promise((resolve) => setTimeout(resolve, durationMs));
      clearInterval(sampler);
      timers.forEach(clearTimeout);
      await sampling;
      await soakLoad.stop();
      await restarting;
      // The last window: from the last sample to the load's stop.
      await sampleOnce();
      const loadAverageAtEnd = os.loadavg().map((l) => Math.round(l * 10) / 10);

      log("load stopped: settling job runs and checking the invariants…");
      const jobs = await settleJobRuns(cluster.url, 30_000);
      const invariants = await checkInvariants(cluster.url, soakLoad.mutations, targets.inProgressAtStart, jobs);
      const flat = judgeFlat(samples);
      const failures = [
        ...(soakLoad.failureCount() > 0
          ? [
              `${soakLoad.failureCount()} answers broke the rules (an undocumented 5xx, HTML on /api, no answer, a cut stream, a sign-out); first: ${describe(soakLoad.failures[0])}`,
            ]
          : []),
        ...flat.filter((f) => !f.held).map((f) => `${f.what} grew: ${f.detail}`),
        ...invariants.filter((i) => !i.held).map((i) => `invariant broken: ${i.name}: ${i.detail}`),
      ];
      const processorCounts = processor.counts();
      return {
        startedAt,
        machine: {
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model ?? "unknown",
          loadAverageAtStart,
          loadAverageAtEnd,
        },
        options: {
          minutes: options.minutes,
          restartEveryMs: options.restartEveryMs,
          hangEveryMs: options.hangEveryMs,
          hangForMs: options.hangForMs,
          users: options.users,
          rows: options.rows,
          sampleEveryMs: options.sampleEveryMs,
        },
        samples,
        totals: Object.fromEntries([...soakLoad.totals].map(([c, labels]) => [c, Object.fromEntries(labels)])),
        latency: Object.fromEntries(
          [...soakLoad.latencies].map(([c, list]) => {
            const { n, p50Ms, p99Ms, maxMs } = summariseTail(list);
            return [c, { n, p50Ms: Math.round(p50Ms), p99Ms: Math.round(p99Ms), maxMs: Math.round(maxMs) }];
          }),
        ),
        restarts,
        hangs,
        processor: processorCounts,
        flat,
        jobs,
        invariants,
        failedRequests: soakLoad.failures,
        failures,
      };
    } finally {
      await server.stop();
    }
  } finally {
    await processor.stop();
    await cluster.destroy();
    log("soak cluster stopped and removed");
  }
}

/** One request of each read in the mix, so the first sample's memory is a served console's, not a cold one's. */
async function warmUp(server: { baseUrl: string; authorization: string; sessionCookie: string }, targets: SoakTargets) {
  // Nothing to act on: the mutations' builders return null, and a sweep (a POST) is left out.
  const readOnly: SoakTargets = { ...targets, takeStuck: () => null, takeCompleted: () => null };
  for (const [i, build] of REQUEST_MIX.entries()) {
    const request = build(readOnly, i);
    if (!request || request.method !== "GET") continue;
    const headers: Record<string, string> =
      request.routeClass === "page" ? { cookie: server.sessionCookie } : { authorization: server.authorization };
    await fetch(`${server.baseUrl}${request.path}`, { headers })
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  }
}

/** every, 2·every, … strictly inside (0, durationMs). */
function multiplesBelow(every: number, durationMs: number): number[] {
  const times: number[] = [];
  for (let at = every; at < durationMs; at += every) times.push(at);
  return times;
}

function describe(failure: Failure | undefined): string {
  return failure ? `${failure.name} ${failure.path} → ${failure.label}: ${failure.detail.slice(0, 160)}` : "none kept";
}

function sampleLine(sample: SoakSample, left: { stuck: number; completed: number }): string {
  const conns = sample.connections
    ? Object.entries(sample.connections)
        .map(([n, c]) => `${n} ${c}`)
        .join(", ")
    : "database down";
  return `  ${sample.atSeconds}s: ${sample.requests} requests, ${sample.failures} failures, p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms, RSS ${sample.rssMiB ?? "?"} MiB, connections: ${conns}${sample.events.length ? `; ${sample.events.join(", ")}` : ""} (targets left: ${left.stuck} stuck, ${left.completed} completed)`;
}
