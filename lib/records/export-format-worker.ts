import { parentPort } from "node:worker_threads";
import { batchFormatter, type BatchFormat, type ExportRow, type FormatBatch } from "@/lib/records/export-format";

// The export's worker thread: turns batches of rows into the file's bytes, off the server's event
// loop, so the other requests are not queued behind 100,000 rows of redaction, CSV and UTF-8
// (docs/bench.md, "Exports under load"). Started by lib/records/export-formatter.ts.

/** A batch to write; `format` names its export's way of writing. */
export type FormatRequest = { id: number; format: BatchFormat; rows: ExportRow[]; first: boolean };
/** The batch's bytes (their buffer is transferred), or why it could not be written. */
export type FormatReply = { id: number; bytes: Uint8Array } | { id: number; error: string };

const encoder = new TextEncoder();
// One export at a time is the common case: its compiled redaction is kept from batch to batch.
let last: { key: string; write: FormatBatch } | null = null;

function formatterOf(format: BatchFormat): FormatBatch {
  const key = JSON.stringify(format);
  if (last?.key !== key) last = { key, write: batchFormatter(format) };
  return last.write;
}

parentPort?.on("message", (request: FormatRequest) => {
  let reply: FormatReply;
  try {
    reply = { id: request.id, bytes: encoder.encode(formatterOf(request.format)(request.rows, request.first)) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply, "bytes" in reply ? [reply.bytes.buffer as ArrayBuffer] : []);
});
