import { parentPort } from "node:worker_threads";
import type pg from "pg";
import { createQuietPool } from "@/lib/db/quiet-pool";
import { readExport, type ExportChunk, type ExportPlan, type ExportReading } from "@/lib/records/export-reading";
import type { ExportRow } from "@/lib/records/export-format";

// The export's worker thread: reads each export's rows on connections of its own and writes them as the
// file's bytes, so the server's event loop only passes the bytes on and the other requests are not queued
// behind 100,000 rows of pg parsing, redaction, CSV and UTF-8 (docs/bench.md, "Exports under load").
// Started by lib/records/export-worker-client.ts.

/** Starts an export, hands out its next chunk, or stops it. */
export type ExportWorkerRequest =
  | { kind: "start"; exportId: number; plan: ExportPlan }
  | { kind: "next"; id: number; exportId: number }
  | { kind: "cancel"; exportId: number };
/** A `next`'s chunk (a batch's bytes are transferred), or why there is none. */
export type ExportWorkerReply = { id: number; chunk: ExportChunk } | { id: number; error: string };

// One pool per connection settings (the primary's export client, the replica's): as small as the client's.
const pools = new Map<string, pg.Pool>();
const readings = new Map<number, ExportReading>();

function poolFor(settings: pg.PoolConfig): pg.Pool {
  const key = JSON.stringify(settings);
  let pool = pools.get(key);
  if (!pool) {
    // A connection the server ends fails the statement on it, and its export says so.
    pool = createQuietPool(settings);
    pools.set(key, pool);
  }
  return pool;
}

function start({ exportId, plan }: { exportId: number; plan: ExportPlan }) {
  const pool = poolFor(plan.connection);
  const query = async (statement: { text: string; values: unknown[] }) =>
    (await pool.query<ExportRow & pg.QueryResultRow>(statement)).rows;
  readings.set(exportId, readExport(query, plan));
}

function next({ id, exportId }: { id: number; exportId: number }) {
  const reading = readings.get(exportId);
  if (!reading) return reply({ id, error: `no export ${exportId} on this worker thread` });
  reading.next().then(
    (chunk) => {
      if ("end" in chunk) readings.delete(exportId);
      reply({ id, chunk });
    },
    (error: unknown) => {
      readings.delete(exportId);
      reply({ id, error: error instanceof Error ? error.message : String(error) });
    },
  );
}

function reply(message: ExportWorkerReply) {
  const transfer = "chunk" in message && "bytes" in message.chunk ? [message.chunk.bytes.buffer as ArrayBuffer] : [];
  parentPort!.postMessage(message, transfer);
}

parentPort?.on("message", (request: ExportWorkerRequest) => {
  if (request.kind === "start") start(request);
  else if (request.kind === "next") next(request);
  else {
    readings.get(request.exportId)?.cancel();
    readings.delete(request.exportId);
  }
});
