import { apiUrl } from "@/lib/api/api-url";
import { API_ROUTES } from "@/lib/api/routes";
import "server-only";
import os from "node:os";
import pg from "pg";
import type { ProgressBar } from "@/lib/terminal/progress";
import { configSchema } from "@/lib/config/schema";
import { migrate } from "@/lib/db/migrate";
import { createPrismaClient } from "@/lib/db/prisma";
import { EXPORT_MAX_ROWS } from "@/lib/records/export-records";
import { existingIndexes } from "@/lib/search/search-indexes";
import { createBenchDatabase } from "./bench-database";
import { prepareCases } from "./bench-cases";
import { withDeadline } from "./deadline";
import { readBody } from "./read-body";
import { startBenchServer } from "./bench-server";
import { startConsoleLoad, type ConsoleLoadReport, type LoadKind } from "./console-load";
import { measureExportCodeMemory, measureExportMemory, type ExportMemorySample } from "./export-memory";
import { measureExportUnderLoad, type ExportUnderLoad } from "./export-under-load";
import { HISTORY_HOURS, loadBenchData, type LoadReport } from "./load-bench-data";
import { startLockSampler, type LockSamplerReport, type LockWait } from "./lock-sampler";
import { startPhaseCounters, type PhaseCounters } from "./phase-counters";
import { summariseTail, type TailLatencySummary } from "./percentiles";
import { BENCH_ACTOR, buildBenchSearchIndexes } from "./run-bench";
import { startWriterChild, type WriterChild } from "./writer-child";
import {
  createCpuPlacement,
  findPostmaster,
  type CpuPlacement,
  type Placement,
  type PlacementCheck,
} from "./writer-placement";
import { WRITER_APPLICATION_NAME, WRITER_CONNECTIONS } from "./writer-protocol";
import { checkpointBeforePhase } from "./phase-checkpoint";
import { benchBackground, type BenchBackground } from "./bench-background";
import { measureSearchIndexCost, type SearchIndexCost } from "./search-index-cost";
import { isConsoleApplicationName } from "@/lib/db/application-name";
import { streamingReplicas } from "./streaming-replicas";
import { tailByRounds, type TailByRounds } from "./tail-by-rounds";

export type WriterImpactOptions = {
  rows: number;
  rate: number;
  seconds: number;
  users: number;
  placements: Placement[];
  sampleMs: number;
  /** The console's (and its background round's) `database.parallelWorkers`. */
  consoleParallelWorkers: number;
  keep: boolean;
  progress: ProgressBar;
  log: (line: string) => void;
};

export type WriterFigures = {
  calls: number;
  failed: number;
  firstError: string | null;
  /** Completion minus scheduled start: the figure the target is on. */
  fromSchedule: TailLatencySummary;
  service: TailLatencySummary;
  sendLag: TailLatencySummary;
};

export type WriterPhase = {
  writer: WriterFigures;
  locks: LockSamplerReport;
  /** Shared counters over the phase (WAL, checkpoints, buffers, page cache, each CPU's busy time). */
  counters: PhaseCounters;
  load: ConsoleLoadReport | null;
  /** Background rounds (roll-up + duplicate scan, every 15 s) that finished during the phase. */
  backgroundRounds: number;
  /** Whether the phase's slowest writer calls overlapped those rounds (issue #31, item 3). */
  tailByRounds: TailByRounds;
};

type SampledPhase<T> = { value: T; counters: PhaseCounters; locks: LockSamplerReport };

export type PlacementResult =
  | {
      placement: Placement;
      ran: true;
      alone: WriterPhase;
      loaded: WriterPhase;
      /** The same load with the console's background round stopped (issue #31, item 3). */
      loadedWithoutRounds: WriterPhase;
      /** loaded / alone, of the latency from the scheduled start. */
      ratio: { p50: number; p95: number; p99: number };
      /** loadedWithoutRounds / alone. */
      ratioWithoutRounds: { p50: number; p95: number; p99: number };
      /** What taskset and ps said mid-way through the loaded phase. */
      check: PlacementCheck | null;
    }
  | { placement: Placement; ran: false; reason: string };

export type WriterImpactReport = {
  rows: number;
  rate: number;
  seconds: number;
  users: number;
  sampleMs: number;
  /** The most parallel workers one console statement could start (database.parallelWorkers). */
  consoleParallelWorkers: number;
  /** The searchable fields' indexes in place while the placements ran: the console's start builds them. */
  searchIndexesDuringPlacements: string[];
  writerConnections: number;
  machine: {
    cpus: number;
    cpuModel: string;
    postgres: string;
    date: string;
    loadAverage: number[];
    replicas: string[];
  };
  load: LoadReport;
  database: string;
  pinning: { postmasterPid: number; databaseCpus: string; consoleCpus: string } | { unavailable: string };
  placements: PlacementResult[];
  /** Target: writer p99 ratio ≤ this with pinning. */
  targetP99Ratio: number;
  /** Whether the writer's sessions timed their reads and WAL (the shared counters' times are theirs). */
  writerIoTimed: boolean;
  /** The writer alone without the searchable fields' expression indexes, then with each (issue #28). */
  searchIndexes: SearchIndexCost;
  /** Background rounds (roll-up + duplicate scan) the bench ran in the server's stead, over the whole run. */
  backgroundRounds: number;
  /** CHECKPOINTs run before measured phases (one per phase unless the server refused them). */
  phaseCheckpoints: number;
  /** The target, per pinned placement that ran (pinned, isolated). */
  targets: PlacementTarget[];
  /** Whether every pinned placement that ran met the target; null when none ran. */
  targetMet: boolean | null;
  /** Every lock a writer waited on that a console backend held, over all phases: the run fails on any. */
  lockFailures: (LockWait & { seenInSamples: number })[];
  /** The Prometheus scrape ran in the loaded phases' mix (issue #17): its requests, with the sampler going. */
  scrape: { requests: number; errors: number };
  /** Issue #31, item 1: the whole-bound CSV export alone and under the API users, and what it costs them. */
  exportUnderLoad: ExportUnderLoad;
  exportMemory: ExportMemorySample[];
  /** The export code with its bound raised, in the bench's own process (the API stops a file at EXPORT_MAX_ROWS). */
  exportCodeMemory: ExportMemorySample[];
};

export type PlacementTarget = {
  placement: Placement;
  met: boolean;
  p99AloneMs: number;
  p99LoadedMs: number;
  ratio: number;
};

export const TARGET_P99_RATIO = 1.2;
const WARMUP_SECONDS = 1;
/** A step around the measured phases that takes longer than this is stuck (the phases have their own limit). */
const STEP_DEADLINE_MS = 30_000;
const LOAD_RAMP_MS = 1_500;
export const SCRAPE_KIND = "prometheus scrape";
export const EXPORT_KIND = "CSV export";

/**
 * The writers' cost of the console (issue #19, item 4): the guard's claim → complete at a fixed rate
 * alone, then with `users` API users on the console, in each placement asked for; a pg_locks
 * sampler runs through every phase. Then the console's peak memory while exporting CSVs of growing
 * size. The bench database is fresh and dropped afterwards, like `idem bench`'s.
 */
export async function runWriterImpact(options: WriterImpactOptions): Promise<WriterImpactReport> {
  const { rows, log } = options;
  const database = await createBenchDatabase();
  log(`bench database ${database.name}`);
  try {
    await migrate(database.url);
    const load = await loadBenchData(database.url, rows, options.progress);
    // Without them every searchable-field request of the load reads each charge_card row's response:
    // a load no started console puts on its writers.
    await buildBenchSearchIndexes(database.url);
    log(`loaded ${rows.toLocaleString("en-US")} rows and ${load.events.toLocaleString("en-US")} events`);
    log("starting the production server (building first if the build is stale)…");
    // The server's background round (roll-up + duplicate scan) runs in the bench instead, so one phase can go without it.
    const server = await startBenchServer(database.url, log, {
      backgroundRounds: false,
      parallelWorkers: options.consoleParallelWorkers,
    });
    const background = benchBackground(database.url, configSchema.parse(server.config), log);
    const client = new pg.Client({ connectionString: database.url, application_name: "idem-bench" });
    await client.connect();
    let writer: WriterChild | null = null;
    try {
      const kinds = await loadKinds(database.url, server.config, rows, load, log);
      writer = await startWriterChild(database.url);
      await warmUp(server, kinds, log);
      background.start();
      const postmaster = await findPostmaster(client);
      const consoleBackends = async () => {
        // A console statement's parallel workers are forked from the postmaster, on the writers' CPU: they follow their leader.
        const { rows } = await client.query<{ pid: number; application_name: string }>(
          `SELECT a.pid, coalesce(leader.application_name, a.application_name) AS application_name
           FROM pg_stat_activity a LEFT JOIN pg_stat_activity leader ON leader.pid = a.leader_pid AND a.backend_type = 'parallel worker'
           WHERE a.datname = current_database() AND a.backend_type IN ('client backend', 'parallel worker')`,
        );
        return rows.filter((r) => isConsoleApplicationName(r.application_name)).map((r) => r.pid);
      };
      const placement =
        typeof postmaster === "number"
          ? await createCpuPlacement(
              { postmaster, writer: writer.pid, console: server.pid, self: process.pid },
              consoleBackends,
            )
          : null;
      let checkpointRefused: string | null = null;
      let phaseCheckpoints = 0;
      const checkpoint = async () => {
        const refused = await checkpointBeforePhase(client);
        if (!refused) phaseCheckpoints += 1;
        if (refused && !checkpointRefused)
          log(`no checkpoint before the phases (${refused}): a checkpoint may land in one`);
        checkpointRefused ??= refused;
      };
      const searchIndexesDuringPlacements = (await existingIndexes(client)).map((index) => index.name);
      const placements: PlacementResult[] = [];
      for (const name of options.placements) {
        if (name !== "shared" && !placement) {
          placements.push({ placement: name, ran: false, reason: postmaster as string });
          log(`${name}: not measured: ${postmaster as string}`);
          continue;
        }
        placements.push(
          await measurePlacement(
            name,
            name === "shared" ? null : placement,
            writer,
            server,
            kinds,
            database.url,
            options,
            checkpoint,
            background,
            client,
          ),
        );
      }
      const searchIndexes = await measureSearchIndexCost(
        database.url,
        configSchema.parse(server.config),
        writer,
        { rate: options.rate, seconds: options.seconds, warmupSeconds: WARMUP_SECONDS },
        // Not counted in phaseCheckpoints: those are the placements' phases.
        async () => void (await checkpointBeforePhase(client)),
        log,
      );
      const exportUnderLoad = await measureExportUnderLoad(
        server,
        kinds.filter((kind) => kind.name !== EXPORT_KIND),
        wholeExportPath(),
        // Not counted in phaseCheckpoints either.
        {
          users: options.users,
          seconds: options.seconds,
          beforePhase: async () => void (await checkpointBeforePhase(client)),
          log,
        },
      );
      log("export memory: the console's peak RSS while streaming CSV exports of growing size…");
      const exportMemory = await measureExportMemory(server, exportSizes(rows, load.end));
      log(
        "export memory beyond the API's bound: the export code itself, in this process, at 200,000 and 1,000,000 rows…",
      );
      const exportCodeMemory = await measureExportCode(database.url, server.config, rows);
      const { rows: version } = await client.query<{ server_version: string }>("SHOW server_version");
      const replicas = await streamingReplicas(client);
      const targets: PlacementTarget[] = placements.flatMap((p) =>
        p.ran && p.placement !== "shared"
          ? [
              {
                placement: p.placement,
                met: p.ratio.p99 <= TARGET_P99_RATIO,
                p99AloneMs: p.alone.writer.fromSchedule.p99Ms,
                p99LoadedMs: p.loaded.writer.fromSchedule.p99Ms,
                ratio: p.ratio.p99,
              },
            ]
          : [],
      );
      const lockFailures = placements.flatMap((p) =>
        p.ran
          ? [...p.alone.locks.onConsole, ...p.loaded.locks.onConsole, ...p.loadedWithoutRounds.locks.onConsole]
          : [],
      );
      const scrapes = placements.flatMap((p) =>
        p.ran ? (p.loaded.load?.kinds ?? []).filter((k) => k.name === SCRAPE_KIND) : [],
      );
      return {
        rows,
        rate: options.rate,
        seconds: options.seconds,
        users: options.users,
        sampleMs: options.sampleMs,
        consoleParallelWorkers: options.consoleParallelWorkers,
        searchIndexesDuringPlacements,
        writerConnections: WRITER_CONNECTIONS,
        machine: {
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model ?? "unknown",
          postgres: version[0]?.server_version ?? "unknown",
          date: new Date().toISOString(),
          replicas,
          loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
        },
        load,
        database: database.name,
        pinning: placement
          ? {
              postmasterPid: postmaster as number,
              databaseCpus: placement.databaseCpus,
              consoleCpus: placement.consoleCpus,
            }
          : { unavailable: postmaster as string },
        placements,
        targetP99Ratio: TARGET_P99_RATIO,
        searchIndexes,
        writerIoTimed: writer.ioTimed,
        backgroundRounds: background.total(),
        phaseCheckpoints,
        targets,
        targetMet: targets.length > 0 ? targets.every((t) => t.met) : null,
        lockFailures,
        scrape: {
          requests: scrapes.reduce((sum, k) => sum + k.requests, 0),
          errors: scrapes.reduce((sum, k) => sum + k.errors, 0),
        },
        exportUnderLoad,
        exportMemory,
        exportCodeMemory,
      };
    } finally {
      await writer?.stop();
      await background.close();
      await client.end();
      await server.stop();
    }
  } finally {
    if (options.keep) log(`kept database ${database.name} (--keep)`);
    else await database.drop();
  }
}

async function measurePlacement(
  name: Placement,
  placement: CpuPlacement | null,
  writer: WriterChild,
  server: { baseUrl: string; authorization: string },
  kinds: LoadKind[],
  url: string,
  options: WriterImpactOptions,
  checkpoint: () => Promise<void>,
  background: BenchBackground,
  countersClient: pg.Client,
): Promise<PlacementResult> {
  const { log, rate, seconds } = options;
  const schedule = { rate, seconds, warmupSeconds: WARMUP_SECONDS };
  const sampled = async <T>(body: () => Promise<T>): Promise<SampledPhase<T>> => {
    const sampler = await withDeadline(
      startLockSampler(url, WRITER_APPLICATION_NAME, options.sampleMs),
      STEP_DEADLINE_MS,
      "connecting the lock sampler",
    );
    try {
      const counting = await startPhaseCounters(countersClient);
      const value = await body();
      const counters = await counting.stop();
      return {
        value,
        counters,
        locks: await withDeadline(sampler.stop(), STEP_DEADLINE_MS, "stopping the lock sampler"),
      };
    } catch (error) {
      await sampler.stop().catch(() => undefined);
      throw error;
    }
  };
  try {
    // Inside the try: a pin that fails halfway (CI saw one) is undone by the restore below, never left in place.
    if (placement && name !== "shared") {
      await placement.pin(name);
      log(
        name === "isolated"
          ? `isolated: PostgreSQL and the writer on CPU ${placement.databaseCpus}; the console, the load and the console's PostgreSQL backends on CPU ${placement.consoleCpus}`
          : `pinned: PostgreSQL (the postmaster and its children) and the writer on CPU ${placement.databaseCpus}, the console and the load on CPU ${placement.consoleCpus}`,
      );
    }
    log(`${name}: writer alone, ${seconds} s at ${rate} calls/s…`);
    // Both phases start LOAD_RAMP_MS after a checkpoint: the loaded one's ramp-up is the alone one's pause.
    await checkpoint();
    await new Promise((resolve) => setTimeout(resolve, LOAD_RAMP_MS));
    const aloneStart = background.rounds();
    const alone = await sampled(() => writer.run(schedule));
    const aloneRounds = background.rounds() - aloneStart;
    log(`${name}: writer with the console under load (${options.users} API users), ${seconds} s at ${rate} calls/s…`);
    await checkpoint();
    const consoleLoad = startConsoleLoad(server, kinds, options.users);
    await new Promise((resolve) => setTimeout(resolve, LOAD_RAMP_MS));
    let check: PlacementCheck | null = null;
    const midway = placement
      ? new Promise<void>((resolve) =>
          setTimeout(
            () =>
              void placement.check().then(
                (c) => ((check = c), resolve()),
                () => resolve(),
              ),
            ((WARMUP_SECONDS + seconds) * 1000) / 2,
          ),
        )
      : Promise.resolve();
    const roundsBefore = background.rounds();
    const loaded = await sampled(() => writer.run(schedule));
    const loadedRounds = background.rounds() - roundsBefore;
    const loadReport = await withDeadline(consoleLoad.stop(), STEP_DEADLINE_MS, "stopping the console load");
    await withDeadline(midway, STEP_DEADLINE_MS, "checking the placement");

    // The same load without the background round (issue #31, item 3): what the roll-up and the scan add to the tail.
    log(`${name}: the same load without the console's background round (roll-up and duplicate scan off)…`);
    await withDeadline(background.stop(), STEP_DEADLINE_MS, "stopping the background round");
    let withoutRounds: SampledPhase<Awaited<ReturnType<WriterChild["run"]>>>;
    let withoutRoundsLoad: ConsoleLoadReport;
    try {
      await checkpoint();
      const quietLoad = startConsoleLoad(server, kinds, options.users);
      await new Promise((resolve) => setTimeout(resolve, LOAD_RAMP_MS));
      withoutRounds = await sampled(() => writer.run(schedule));
      withoutRoundsLoad = await withDeadline(quietLoad.stop(), STEP_DEADLINE_MS, "stopping the console load");
    } finally {
      background.start();
    }
    // Every round that overlapped the phases has ended: stop() above waited for the one in progress.
    const tailOf = (samples: Awaited<ReturnType<WriterChild["run"]>>) =>
      tailByRounds({ dueAt: samples.dueAt, ms: samples.fromSchedule }, background.spans());
    const aloneFigures = figures(alone.value);
    const loadedFigures = figures(loaded.value);
    const withoutRoundsFigures = figures(withoutRounds.value);
    const ratio = (key: "p50Ms" | "p95Ms" | "p99Ms", of: WriterFigures = loadedFigures) =>
      aloneFigures.fromSchedule[key] > 0
        ? Math.round((of.fromSchedule[key] / aloneFigures.fromSchedule[key]) * 100) / 100
        : 0;
    return {
      placement: name,
      ran: true,
      alone: {
        writer: aloneFigures,
        locks: alone.locks,
        counters: alone.counters,
        load: null,
        backgroundRounds: aloneRounds,
        tailByRounds: tailOf(alone.value),
      },
      loaded: {
        writer: loadedFigures,
        locks: loaded.locks,
        counters: loaded.counters,
        load: loadReport,
        backgroundRounds: loadedRounds,
        tailByRounds: tailOf(loaded.value),
      },
      loadedWithoutRounds: {
        writer: withoutRoundsFigures,
        locks: withoutRounds.locks,
        counters: withoutRounds.counters,
        load: withoutRoundsLoad,
        backgroundRounds: 0,
        tailByRounds: tailOf(withoutRounds.value),
      },
      ratio: { p50: ratio("p50Ms"), p95: ratio("p95Ms"), p99: ratio("p99Ms") },
      ratioWithoutRounds: {
        p50: ratio("p50Ms", withoutRoundsFigures),
        p95: ratio("p95Ms", withoutRoundsFigures),
        p99: ratio("p99Ms", withoutRoundsFigures),
      },
      check,
    };
  } finally {
    if (placement) {
      await placement.restore();
      log("pinning undone: every process back on the CPUs it had");
    }
  }
}

function figures(samples: Awaited<ReturnType<WriterChild["run"]>>): WriterFigures {
  return {
    calls: samples.fromSchedule.length + samples.failed,
    failed: samples.failed,
    firstError: samples.firstError,
    fromSchedule: summariseTail(samples.fromSchedule),
    service: summariseTail(samples.service),
    sendLag: summariseTail(samples.sendLag),
  };
}

/** The console's read mix: every GET case of `idem bench` (lists, lookup, detail, metrics, the scrape, tools audit) and the CSV export. */
export async function loadKinds(
  url: string,
  rawConfig: unknown,
  rows: number,
  load: LoadReport,
  log: (line: string) => void,
): Promise<LoadKind[]> {
  const config = configSchema.parse(rawConfig);
  const cases = await prepareCases(url, { actor: BENCH_ACTOR, config, rows, load, log }, 0);
  const db = createPrismaClient(url, 1);
  try {
    // The metrics cases' newest minutes hold traffic, as on a live table (bench-cases: liveTraffic).
    for (const benchCase of cases) await benchCase.prepare?.(db);
  } finally {
    await db.$disconnect();
  }
  // Resolve writes (and needs a fresh stuck claim per call): the mix is the console's reads.
  const reads = cases
    .map((c) => ({ name: c.name, requests: c.inputs.map((input) => c.api(input)) }))
    .filter((c) => c.requests.length > 0 && c.requests.every((r) => r.method === "GET"));
  return [
    ...reads.map((c) => ({ name: c.name, paths: c.requests.map((r) => r.path) })),
    { name: EXPORT_KIND, paths: [wholeExportPath()] },
  ];
}

/** The unfiltered CSV export: the API's whole bound (EXPORT_MAX_ROWS) where the table holds that many. */
function wholeExportPath(): string {
  return apiUrl(API_ROUTES.exportRecords, {}, { format: "csv" });
}

/**
 * One request of each kind first, so neither placement measures the console's first, cold requests
 * (JIT, caches). A request the console refuses (4xx) is a broken mix and stops the run; a 5xx on a
 * busy machine (a statement limit) is only said: the load phases count their errors per kind.
 */
export async function warmUp(
  server: { baseUrl: string; authorization: string },
  kinds: LoadKind[],
  log: (line: string) => void,
): Promise<void> {
  for (const kind of kinds) {
    const response = await fetch(`${server.baseUrl}${kind.paths[0]!}`, {
      headers: { authorization: server.authorization },
    });
    await readBody(response);
    if (response.status >= 400 && response.status < 500)
      throw new Error(`warming up the console: ${kind.name} answered HTTP ${response.status}`);
    if (!response.ok) log(`warming up the console: ${kind.name} answered HTTP ${response.status}`);
  }
}

/** 200,000, 1,000,000, then 200,000 rows again where the table holds them (the table's size where it holds fewer). */
async function measureExportCode(url: string, rawConfig: unknown, rows: number): Promise<ExportMemorySample[]> {
  const sizes = [...new Set([200_000, 1_000_000].map((size) => Math.min(size, rows)))];
  sizes.push(sizes[0]!); // the first again, on the heap the biggest left behind
  const db = createPrismaClient(url, 2);
  try {
    return await measureExportCodeMemory(db, BENCH_ACTOR, configSchema.parse(rawConfig), sizes);
  } finally {
    await db.$disconnect();
  }
}

/** Exports of about 1 %, 10 % and 100 % of what one export may hold, from the loaded rows (uniform over the history). */
function exportSizes(rows: number, loadEnd: string): { label: string; path: string }[] {
  const biggest = Math.min(rows, EXPORT_MAX_ROWS);
  const end = new Date(loadEnd);
  // The biggest twice: a first export's peak includes the heap growing to its working size, a second's does not.
  return [0.01, 0.1, 1, 1].map((share, i) => {
    const wanted = Math.max(1, Math.round(biggest * share));
    const from = new Date(end.getTime() - (HISTORY_HOURS * 3_600_000 * wanted) / rows);
    return {
      label: `~${wanted.toLocaleString("en-US")} rows${i === 3 ? " again" : ""}`,
      path: apiUrl(API_ROUTES.exportRecords, {}, { format: "csv", from: from.toISOString(), to: end.toISOString() }),
    };
  });
}
