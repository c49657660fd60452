import "server-only";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { BatchFormat, ExportRow } from "@/lib/records/export-format";
import type { FormatReply, FormatRequest } from "@/lib/records/export-format-worker";

/** The worker's file name in the CLI's esbuild bundle (scripts/cli-bundle.mjs defines it); undefined elsewhere. */
declare const __IDEM_CLI_EXPORT_WORKER__: string | undefined;

type Waiting = { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void };
type Formatter = { worker: Worker; waiting: Map<number, Waiting>; nextId: number };

// One worker per server: concurrent exports queue their batches on it, so together they never take
// more than one core from the requests the event loop answers. On globalThis, as the database clients
// are (lib/db/prisma.ts): the server's bundles each hold their own copy of this module.
const shared = globalThis as { idemExportFormatter?: Formatter | null };

/** A batch of an export's rows as the file's bytes, written on the export's worker thread. */
export function formatBatch(format: BatchFormat, rows: ExportRow[], first: boolean): Promise<Uint8Array> {
  const formatter = (shared.idemExportFormatter ??= startFormatter());
  const { worker, waiting, nextId: id } = formatter;
  formatter.nextId += 1;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // Held while a batch is out (a CLI or test may have nothing else keeping the process up), let go when none is.
    worker.ref();
    worker.postMessage({ id, format, rows, first } satisfies FormatRequest);
  });
}

function startFormatter(): Formatter {
  const worker =
    typeof __IDEM_CLI_EXPORT_WORKER__ === "string"
      ? workerBesideCliBundle(__IDEM_CLI_EXPORT_WORKER__)
      : import.meta.url.endsWith(".ts")
        ? workerFromSource()
        : new Worker(new URL("./export-format-worker.ts", import.meta.url));
  const started: Formatter = { worker, waiting: new Map(), nextId: 1 };
  const failAll = (error: Error) => {
    for (const { reject } of started.waiting.values()) reject(error);
    started.waiting.clear();
    if (shared.idemExportFormatter === started) shared.idemExportFormatter = null; // the next batch starts a new worker
  };
  worker.on("message", (reply: FormatReply) => {
    const waiting = started.waiting.get(reply.id);
    started.waiting.delete(reply.id);
    if (started.waiting.size === 0) worker.unref();
    if ("bytes" in reply) waiting?.resolve(reply.bytes);
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
  const entry = JSON.stringify(new URL("./export-format-worker.ts", import.meta.url).href);
  return new Worker(`import("tsx/esm/api").then(({ tsImport }) => tsImport(${entry}, ${entry}))`, { eval: true });
}

/** Ends the worker (a tool or test done with exports): batches still out are refused; the next starts another. */
export async function stopExportFormatter(): Promise<void> {
  const stopping = shared.idemExportFormatter;
  shared.idemExportFormatter = null;
  if (stopping) await stopping.worker.terminate();
}
