import type pg from "pg";
import { batchFormatter, type BatchFormat, type ExportRow } from "@/lib/records/export-format";

// One export's rows, read and written on the export's worker thread (lib/records/export-worker.ts): the
// keyset walk, a batch read ahead, each batch's bytes. Free of "server-only": the worker imports it.

/** A statement as pg takes it; its LIMIT is its last parameter. */
export type PlannedStatement = { text: string; values: unknown[] };

/** The first batch's statement, and every later one's, which takes the previous batch's last row at `cursorAt`. */
export type ExportStatements = {
  first: PlannedStatement;
  after: PlannedStatement & { cursorAt: { createdAt: number; key: number } };
};

/** All the worker needs to read and write one export. */
export type ExportPlan = {
  /** The export client's own pool settings: the worker's connections are the same as the console's. */
  connection: pg.PoolConfig;
  statements: ExportStatements;
  format: BatchFormat;
  maxRows: number;
  batchSize: number;
};

/** What an export hands out next: a batch's bytes, or the end of its rows (and whether the bound cut it short). */
export type ExportChunk = { bytes: Uint8Array; rows: number } | { end: { written: number; truncated: boolean } };

export type ExportReading = {
  /** The next chunk; call again only once it has settled. */
  next(): Promise<ExportChunk>;
  /** Stops reading: a statement out is finished and dropped. */
  cancel(): void;
};

type Query = (statement: PlannedStatement) => Promise<ExportRow[]>;

/** Written batches held ready for the reader: memory stays at a few batches however slow the download. */
const READY_AT_MOST = 2;

/**
 * Reads an export batch by batch in keyset order, a batch ahead of the one handed out: the next batch's
 * statement leaves before this one is written, so the database's work and the writing overlap.
 */
export function readExport(query: Query, plan: ExportPlan): ExportReading {
  const write = batchFormatter(plan.format);
  const encoder = new TextEncoder();
  const ready: ExportChunk[] = [];
  let waiting: { resolve: (chunk: ExportChunk) => void; reject: (error: unknown) => void } | null = null;
  let failure: { error: unknown } | null = null;
  let reading = false;
  let allRead = false;
  let cancelled = false;
  let fetched = 0;
  let cursor: { createdAt: string; key: string } | null = null;

  const statement = (take: number): PlannedStatement => {
    const { first, after } = plan.statements;
    const values = [...(cursor ? after.values : first.values)];
    if (cursor) {
      values[after.cursorAt.createdAt] = cursor.createdAt;
      values[after.cursorAt.key] = cursor.key;
    }
    // One extra row tells a stop at the bound apart from the natural end.
    values[values.length - 1] = take + 1;
    return { text: cursor ? after.text : first.text, values };
  };

  const hand = (chunk: ExportChunk) => {
    if (!waiting) return void ready.push(chunk);
    const { resolve } = waiting;
    waiting = null;
    resolve(chunk);
  };

  const fail = (error: unknown) => {
    failure = { error };
    if (!waiting) return;
    const { reject } = waiting;
    waiting = null;
    reject(error);
  };

  // `inHand`: a batch read and not yet written counts as ready.
  const readAhead = (inHand = 0) => {
    if (reading || allRead || cancelled || failure || ready.length + inHand >= READY_AT_MOST) return;
    reading = true;
    void readBatch().catch(fail);
  };

  async function readBatch() {
    const take = Math.min(plan.batchSize, plan.maxRows - fetched);
    const rows = await query(statement(take));
    if (cancelled) return;
    const more = rows.length > take;
    const batch = more ? rows.slice(0, take) : rows;
    const first = fetched === 0;
    fetched += batch.length;
    const last = batch[batch.length - 1];
    allRead = !(more && last && fetched < plan.maxRows);
    if (last) cursor = { createdAt: last.created_at_exact, key: last.key };
    reading = false;
    readAhead(1);
    if (batch.length > 0) hand({ bytes: encoder.encode(write(batch, first)), rows: batch.length });
    if (allRead) hand({ end: { written: fetched, truncated: more && fetched >= plan.maxRows } });
  }

  return {
    next() {
      if (failure) return Promise.reject(failure.error);
      const chunk = ready.shift();
      readAhead();
      if (chunk) return Promise.resolve(chunk);
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        readAhead();
      });
    },
    cancel() {
      cancelled = true;
      ready.length = 0;
      // A reader still waiting is answered, so nothing is left holding its request.
      fail(new Error("the export was cancelled"));
    },
  };
}
