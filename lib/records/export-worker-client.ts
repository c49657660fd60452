import "server-only";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ExportChunk, ExportPlan, ExportReading } from "@/lib/records/export-reading";
import type { ExportWorkerReply, ExportWorkerRequest } from "@/lib/records/export-worker";

/** The worker's file name in the CLI's esbuild bundle (scripts/cli-bundle.mjs defines it); undefined elsewhere. */
declare const __IDEM_CLI_EXPORT_WORKER__: string | undefined;

type Waiting = { resolve: (chunk: ExportChunk) => void; reject: (error: Error) => void };
type ExportWorker = { worker: Worker; waiting: Map<number, Waiting>; nextId: number };

// One worker per server: concurrent exports take turns on it, so together they never take more than one
// core from the requests the event loop answers. On globalThis, as the database clients are
// (lib/db/prisma.ts): the server's bundles each hold their own copy of this module.
const shared = globalThis as { idemExportWorker?: ExportWorker | null };

/**
 * Reads and writes an export on the export's worker thread, which holds its own connections (made with
 * the plan's settings): the event loop only receives each batch's bytes.
 */
export function readOnExportWorker(plan: ExportPlan): ExportReading {
  const running = (shared.idemExportWorker ??= startWorker());
  const exportId = running.nextId++;
  let cancelled = false;
  send(running, { kind: "start", exportId, plan });
  return {
    next() {
      if (cancelled) return Promise.reject(new Error("the export was cancelled"));
      // A worker that stopped took this export's reading with it: the next chunk is refused, not started over.
      if (shared.idemExportWorker !== running) return Promise.reject(new Error("the export's worker thread stopped"));
      const id = running.nextId++;
      return new Promise<ExportChunk>((resolve, reject) => {
        running.waiting.set(id, { resolve, reject });
        // Held while a chunk is awaited (a CLI or test may have nothing else keeping the process up).
        running.worker.ref();
        send(running, { kind: "next", id, exportId });
      });
    },
    cancel() {
      if (cancelled) return;
      cancelled = true;
      if (shared.idemExportWorker === running) send(running, { kind: "cancel", exportId });
    },
  };
}

function send({ worker }: ExportWorker, request: ExportWorkerRequest) {
  worker.postMessage(request);
}

function startWorker(): ExportWorker {
  const worker =
    typeof __IDEM_CLI_EXPORT_WORKER__ === "string"
      ? workerBesideCliBundle(__IDEM_CLI_EXPORT_WORKER__)
      : import.meta.url.endsWith(".ts")
        ? workerFromSource()
        : new Worker(new URL("./export-worker.ts", import.meta.url));
  const started: ExportWorker = { worker, waiting: new Map(), nextId: 1 };
  const failAll = (error: Error) => {
    for (const { reject } of started.waiting.values()) reject(error);
    started.waiting.clear();
    if (shared.idemExportWorker === started) shared.idemExportWorker = null; // the next export starts a new worker
  };
  worker.on("message", (reply: ExportWorkerReply) => {
    const waiting = started.waiting.get(reply.id);
    started.waiting.delete(reply.id);
    if (started.waiting.size === 0) worker.unref();
    if ("chunk" in reply) waiting?.resolve(reply.chunk);
    else waiting?.reject(new Error(reply.error));
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`the export's worker thread stopped (exit code ${code})`)));
  worker.unref();
  return started;
}

/** The CLI's bundle (bench-writers exports in its own process): the worker is an entry of its own, in this chunk's directory. */
function workerBesideCliBundle(file: string): Worker {
  return new Worker(path.join(path.dirname(fileURLToPath(import.meta.url)), file));
}

/**
 * Next's build bundles the worker's module with the server (the `new Worker(new URL(…))` form above).
 * Run from source (the tests, the tsx tools) this module is TypeScript, and so is the worker's: it is
 * loaded through tsx, as the caller's code is.
 */
function workerFromSource(): Worker {
  const entry = JSON.stringify(new URL("./export-worker.ts", import.meta.url).href);
  return new Worker(`import("tsx/esm/api").then(({ tsImport }) => tsImport(${entry}, ${entry}))`, { eval: true });
}

/** Ends the worker and its connections (a tool or test done with exports): exports still running fail; the next starts another. */
export async function stopExportWorker(): Promise<void> {
  const stopping = shared.idemExportWorker;
  shared.idemExportWorker = null;
  if (stopping) await stopping.worker.terminate();
}
