import { fork, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sourcePath } from "@/lib/build/source-root";
import { emptyCounts, mergeCounts, type HistoryCounts } from "./history-counts";
import type { HistoryWorkerMessage, HistoryWorkerRequest } from "./history-worker-protocol";
import type { Progress } from "./run-plan";

/** The worker's file name in the CLI's esbuild bundle (scripts/cli-bundle.mjs defines it); undefined elsewhere. */
declare const __IDEM_CLI_HISTORY_WORKER__: string | undefined;

/**
 * The worker's entry and Node's arguments for it, under the react-server condition as the CLI has, so a
 * `server-only` module it reaches loads (empty) outside Next. From the CLI's bundle (`npm run demo`, seed-demo): the
 * bundled worker beside this chunk. From source (vitest, tsx): the TypeScript, through tsx's loader.
 */
function workerCommand(): { entry: string; execArgv: string[] } {
  if (typeof __IDEM_CLI_HISTORY_WORKER__ === "string")
    return {
      entry: path.join(path.dirname(fileURLToPath(import.meta.url)), __IDEM_CLI_HISTORY_WORKER__),
      execArgv: ["--conditions=react-server"],
    };
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return {
    entry: sourcePath("tools/demo/traffic/history-worker.ts"),
    execArgv: ["--conditions=react-server", "--import", tsxLoader],
  };
}

/**
 * Splits a planned history into `workers` shares (whole scenarios) and runs each in a child
 * process with its own MCP client, adding up their counts. One Node thread spent about as much
 * CPU driving the client as serving the calls; a second process puts the client on the
 * machine's other core.
 */
export async function runHistoryInWorkers(
  share: Omit<HistoryWorkerRequest, "shard" | "shards">,
  options: { workers: number; total: number; onProgress?: (progress: Progress) => void },
): Promise<HistoryCounts> {
  const doneByWorker = new Array<number>(options.workers).fill(0);
  const children: ChildProcess[] = [];
  try {
    const parts = await Promise.all(
      doneByWorker.map((_, shard) =>
        runWorker({ ...share, shard, shards: options.workers }, children, (done) => {
          doneByWorker[shard] = done;
          options.onProgress?.({ done: doneByWorker.reduce((a, b) => a + b, 0), total: options.total });
        }),
      ),
    );
    const counts = emptyCounts();
    for (const part of parts) mergeCounts(counts, part);
    return counts;
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

function runWorker(
  request: HistoryWorkerRequest,
  children: ChildProcess[],
  onDone: (done: number) => void,
): Promise<HistoryCounts> {
  return new Promise((resolve, reject) => {
    const { entry, execArgv } = workerCommand();
    const child = fork(entry, [], {
      execArgv,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    children.push(child);
    let settled = false;
    const settle = (fn: () => void) => {
      if (!settled) {
        settled = true;
        fn();
      }
    };
    child.on("message", (message: HistoryWorkerMessage) => {
      if (message.type === "progress") onDone(message.done);
      else if (message.type === "done") settle(() => resolve(message.counts));
      else settle(() => reject(new Error(`history worker ${request.shard}: ${message.message}`)));
    });
    child.once("error", (error) => settle(() => reject(error)));
    child.once("exit", (code, signal) =>
      settle(() => reject(new Error(`history worker ${request.shard} exited (${signal ?? code}) before reporting`))),
    );
    child.send(request);
  });
}
