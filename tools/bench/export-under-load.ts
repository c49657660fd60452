import { performance } from "node:perf_hooks";
import { startConsoleLoad, type ConsoleLoadReport, type LoadKind } from "./console-load";
import { summariseTail, type TailLatencySummary } from "./percentiles";
import { downloadAsSent } from "./download-as-sent";

/** Issue #31, item 1: an export under load within this many times its time alone… */
export const TARGET_EXPORT_RATIO = 2;
/** …and the other users' p99 within this many times their p99 without the export. */
export const TARGET_USERS_P99_RATIO = 1.5;
/** An export still running this long after the phase's end is reported unfinished. */
const EXPORT_GRACE_MS = 120_000;
const ALONE_RUNS = 3;
const ROUNDS = 2;

/** One export's time to its last byte, and its bytes as sent (gzip, as a browser asks for it) with their encoding. */
export type ExportRun = { seconds: number; bytes: number; encoding: string | null; finished: boolean };

export type ExportUnderLoad = {
  users: number;
  /** The export measured: the API's whole bound (100,000 rows) unless the table holds fewer. */
  path: string;
  alone: { runs: ExportRun[]; medianSeconds: number };
  /** The users' requests, all kinds and rounds pooled, with no export running. */
  usersAlone: { loads: ConsoleLoadReport[]; latency: TailLatencySummary };
  /** The same users while exports run back to back, one at a time. */
  loaded: { runs: ExportRun[]; medianSeconds: number; loads: ConsoleLoadReport[]; latency: TailLatencySummary };
  exportRatio: number;
  usersP99Ratio: number;
  targets: { exportRatio: number; usersP99Ratio: number };
  met: { export: boolean; users: boolean };
};

/**
 * An export's time alone and under `users` API users, and what it costs them: the export ALONE_RUNS
 * times with nothing else running; then, ROUNDS times, the users for `seconds` without it and the
 * users again for `seconds` with exports running back to back (the last one finishes before the
 * load stops, so the users' figures cover every moment an export ran). Each phase starts after
 * `beforePhase` (a checkpoint).
 */
export async function measureExportUnderLoad(
  server: { baseUrl: string; authorization: string },
  kinds: LoadKind[],
  exportPath: string,
  options: { users: number; seconds: number; beforePhase: () => Promise<void>; log: (line: string) => void },
): Promise<ExportUnderLoad> {
  const { users, seconds, log } = options;
  const exportOnce = async (): Promise<ExportRun> => {
    const t = performance.now();
    const download = await downloadAsSent(
      `${server.baseUrl}${exportPath}`,
      { authorization: server.authorization },
      EXPORT_GRACE_MS,
    );
    if (download.status !== 200) throw new Error(`export ${exportPath}: HTTP ${download.status}: ${download.body}`);
    const { bytes, contentEncoding: encoding, finished } = download;
    return { seconds: round((performance.now() - t) / 1000), bytes, encoding, finished };
  };

  log(`export under load: the export alone, ${ALONE_RUNS} times…`);
  await options.beforePhase();
  const aloneRuns: ExportRun[] = [];
  for (let i = 0; i < ALONE_RUNS; i += 1) aloneRuns.push(await exportOnce());

  // Without and with the export in turns, ROUNDS times, each condition's samples pooled: one phase of
  // each drifted by ±30 % at p99 between runs (the machine's state, not the export).
  const usersAloneSamples: number[] = [];
  const loadedSamples: number[] = [];
  const usersAloneLoads: ConsoleLoadReport[] = [];
  const loadedLoads: ConsoleLoadReport[] = [];
  const loadedRuns: ExportRun[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    log(`export under load, round ${round}/${ROUNDS}: ${users} API users for ${seconds} s without an export…`);
    await options.beforePhase();
    const quiet = await withLoad(server, kinds, users, () => sleep(seconds * 1000));
    usersAloneSamples.push(...quiet.samples);
    usersAloneLoads.push(quiet.load);
    log(`export under load, round ${round}/${ROUNDS}: the same users for ${seconds} s with exports back to back…`);
    await options.beforePhase();
    const busy = await withLoad(server, kinds, users, async () => {
      const end = performance.now() + seconds * 1000;
      do loadedRuns.push(await exportOnce());
      while (performance.now() < end);
    });
    loadedSamples.push(...busy.samples);
    loadedLoads.push(busy.load);
  }
  const usersAlone = { loads: usersAloneLoads, latency: summariseTail(usersAloneSamples) };
  const loaded = { loads: loadedLoads, latency: summariseTail(loadedSamples) };

  const aloneMedian = median(aloneRuns.map((r) => r.seconds));
  const loadedMedian = median(loadedRuns.map((r) => (r.finished ? r.seconds : Infinity)));
  const exportRatio = aloneMedian > 0 ? round(loadedMedian / aloneMedian) : 0;
  const usersP99Ratio = usersAlone.latency.p99Ms > 0 ? round(loaded.latency.p99Ms / usersAlone.latency.p99Ms) : 0;
  return {
    users,
    path: exportPath,
    alone: { runs: aloneRuns, medianSeconds: aloneMedian },
    usersAlone,
    loaded: { runs: loadedRuns, medianSeconds: loadedMedian, ...loaded },
    exportRatio,
    usersP99Ratio,
    targets: { exportRatio: TARGET_EXPORT_RATIO, usersP99Ratio: TARGET_USERS_P99_RATIO },
    met: { export: exportRatio <= TARGET_EXPORT_RATIO, users: usersP99Ratio <= TARGET_USERS_P99_RATIO },
  };
}

async function withLoad(
  server: { baseUrl: string; authorization: string },
  kinds: LoadKind[],
  users: number,
  during: () => Promise<void>,
): Promise<{ load: ConsoleLoadReport; samples: number[] }> {
  const load = startConsoleLoad(server, kinds, users);
  let report: ConsoleLoadReport;
  try {
    await during();
  } finally {
    report = await load.stop();
  }
  return { load: report, samples: load.samples() };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

const round = (value: number) => Math.round(value * 100) / 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
