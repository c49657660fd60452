import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { RecordsCursor } from "@/lib/records/list-cursor";
import { formatInstant } from "@/lib/url-state/time-range";
import { describeFilter, type ExportFormat, type RecordsFilter } from "@/lib/records/list-filters";
import { fetchExportRows } from "@/lib/records/export-rows";
import { CSV_COLUMNS, csvLine, type BatchFormat, type ExportRow } from "@/lib/records/export-format";
import { formatBatch } from "@/lib/records/export-formatter";
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
  const encoder = new TextEncoder();
  const format = options.format;

  let cursor: RecordsCursor | null = null;
  let written = 0;
  let started = false;
  let cancelled = false;
  let prefetched: Promise<ExportRow[]> | null = null;

  // One extra row tells a stop at the bound apart from the natural end.
  const fetchBatch = (take: number) => fetchExportRows(db, conditions, cursor, take + 1, config, now);

  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
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
        const take = Math.min(batchSize, maxRows - written);
        const rows = await (prefetched ?? fetchBatch(take));
        prefetched = null;
        if (cancelled) return;
        const batch = rows.slice(0, take);
        const last = batch[batch.length - 1];
        const more = rows.length > take;
        // The next batch is read while this one is written out: under load the query's wait and
        // the formatting's CPU overlap instead of adding up.
        if (more && last && written + batch.length < maxRows) {
          cursor = { createdAt: last.created_at_exact, key: last.key };
          prefetched = fetchBatch(Math.min(batchSize, maxRows - written - batch.length));
          prefetched.catch(() => undefined); // awaited by the next pull, or dropped on cancel
        }
        // Written on the export's worker thread while the next batch is read.
        const bytes = batch.length > 0 ? await formatBatch(batchFormat, batch, written === 0) : null;
        if (cancelled) return;
        written += batch.length;
        if (bytes && bytes.byteLength > 0) controller.enqueue(bytes);
        if (prefetched) return;
        const truncated = more && written >= maxRows;
        const tail = format === "csv" ? csvTrailer(written, truncated, maxRows) : jsonTail(written, truncated);
        if (tail) controller.enqueue(encoder.encode(tail));
        controller.close();
      } catch (error) {
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
