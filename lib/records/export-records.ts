import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import { formatInstant } from "@/lib/url-state/time-range";
import { describeFilter, type ExportFormat, type RecordsFilter } from "@/lib/records/list-filters";
import { connectionSettingsOf, type Db } from "@/lib/db/prisma";
import { exportStatements } from "@/lib/records/export-rows";
import { CSV_COLUMNS, csvLine, type BatchFormat } from "@/lib/records/export-format";
import type { ExportPlan, ExportReading } from "@/lib/records/export-reading";
import { readOnExportWorker } from "@/lib/records/export-worker-client";
import { recordsConditions } from "@/lib/records/list-records";
import { stuckAfterMs } from "@/lib/records/stuck-threshold";
import { redactionOf } from "@/lib/privacy/redact";

/** An export stops here; the trailing line (CSV) or `truncated` field (JSON) says so. */
export const EXPORT_MAX_ROWS = 100_000;
const BATCH_SIZE = 1_000;

export type ExportOptions = {
  format: ExportFormat;
  maxRows?: number;
  batchSize?: number;
};

export type RecordsExport = {
  stream: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
  maxRows: number;
};

/**
 * The current filter as a file, newest first, streamed in keyset batches so memory stays flat
 * and the first bytes leave at once. Bounded at `maxRows`; the end of the file says whether it
 * stopped there. Stored responses are redacted for every role (a file travels: reveal is per record).
 */
export function exportRecords(
  db: Db,
  actor: Actor,
  filter: RecordsFilter,
  config: IdemConfig,
  now: Date,
  options: ExportOptions,
): RecordsExport {
  const maxRows = options.maxRows ?? EXPORT_MAX_ROWS;
  const batchSize = Math.min(options.batchSize ?? BATCH_SIZE, maxRows);
  const conditions = recordsConditions(actor, filter, config, now);
  const redactPaths = redactionOf(config);
  const batchFormat: BatchFormat = {
    format: options.format,
    redaction: redactPaths,
    stuckAfterMs: {
      byTool: Object.fromEntries(Object.keys(config.tools).map((tool) => [tool, stuckAfterMs(config, tool)])),
      otherwise: config.defaultStuckAfter,
    },
  };
  const connection = connectionSettingsOf(db);
  if (!connection) throw new Error("an export reads on connections of its own: its client must be one lib/db builds");
  const plan: ExportPlan = {
    connection,
    statements: exportStatements(conditions, config, now),
    format: batchFormat,
    maxRows,
    batchSize,
  };
  const encoder = new TextEncoder();
  const format = options.format;
  let reading: ExportReading | null = null;
  let written = 0;
  // A download cut short: the chunk or failure that arrives after it is dropped, not written to a closed stream.
  let cancelled = false;

  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!reading) {
          // Read and written on the export's worker thread: the event loop only passes the bytes on.
          reading = readOnExportWorker(plan);
          controller.enqueue(
            encoder.encode(
              format === "csv"
                ? csvLine(CSV_COLUMNS)
                : jsonHead(
                    filter,
                    now,
                    maxRows,
                    redactPaths.paths.length > 0 || redactPaths.values.email || redactPaths.values.cardNumbers,
                  ),
            ),
          );
        }
        const chunk = await reading.next();
        if (cancelled) return;
        if ("bytes" in chunk) {
          written += chunk.rows;
          controller.enqueue(chunk.bytes);
          return;
        }
        const { truncated } = chunk.end;
        const tail = format === "csv" ? csvTrailer(written, truncated, maxRows) : jsonTail(written, truncated);
        if (tail) controller.enqueue(encoder.encode(tail));
        controller.close();
      } catch (error) {
        if (cancelled) return;
        // Headers are gone by now: the file itself must say it is incomplete.
        console.error("[export]", error);
        const message = `export failed after ${written} rows; the error is in the server log`;
        controller.enqueue(
          encoder.encode(format === "csv" ? `# ${message}\n` : `\n], "error": ${JSON.stringify(message)}}\n`),
        );
        controller.close();
      }
    },
    cancel() {
      cancelled = true;
      reading?.cancel();
    },
  });

  const stamp = `${now.toISOString().slice(0, 19).replace(/[-:]/g, "")}Z`;
  const scope = describeFilter(filter) ? "-filtered" : "";
  return {
    stream,
    contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
    filename: `idem-records${scope}-${stamp}.${format}`,
    maxRows,
  };
}

function csvTrailer(written: number, truncated: boolean, maxRows: number): string {
  // Only a cut-short file gets a trailing line: a complete one stays plain RFC 4180 for tools.
  return truncated
    ? `# truncated: the export stops at ${maxRows} rows (${written} written); narrow the filter (created from / before) to export the rest\r\n`
    : "";
}

function jsonHead(filter: RecordsFilter, now: Date, maxRows: number, redacted: boolean): string {
  const head = {
    exportedAt: now.toISOString(),
    filter: {
      ...filter,
      from: filter.from ? formatInstant(filter.from) : null,
      to: filter.to ? formatInstant(filter.to) : null,
    },
    maxRows,
    redacted,
  };
  return `${JSON.stringify(head).slice(0, -1)},"records":[`;
}

function jsonTail(written: number, truncated: boolean): string {
  return `\n],"count":${written},"truncated":${truncated}}\n`;
}
