import "server-only";
import { refOf } from "idem-guard";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { RecordsCursor } from "@/lib/records/list-cursor";
import { formatInstant } from "@/lib/url-state/time-range";
import { describeFilter, type ExportFormat, type RecordsFilter } from "@/lib/records/list-filters";
import { fetchExportRows, type ExportRow } from "@/lib/records/export-rows";
import { recordsConditions } from "@/lib/records/list-records";
import { stuckAfterMs } from "@/lib/records/stuck-threshold";
import { redactionOf } from "@/lib/privacy/redact";
import { compileRedaction } from "@/lib/privacy/compiled-redaction";

/** An export stops here; the trailing line (CSV) or `truncated` field (JSON) says so. */
export const EXPORT_MAX_ROWS = 100_000;
const BATCH_SIZE = 1_000;

export const CSV_COLUMNS = [
  "key",
  "ref",
  "tenant",
  "subject",
  "tool",
  "status",
  "stuck",
  "created_at",
  "updated_at",
  "response",
] as const;

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
  const redact = compileRedaction(redactPaths);
  const encoder = new TextEncoder();
  const format = options.format;

  let cursor: RecordsCursor | null = null;
  let written = 0;
  let started = false;
  let cancelled = false;
  let prefetched: Promise<ExportRow[]> | null = null;

  // One extra row tells a stop at the bound apart from the natural end.
  const fetchBatch = (take: number) => fetchExportRows(db, conditions, cursor, take + 1, config, now);

  /** A records list item with its exact creation time and its redacted response, in that key order. */
  function row(r: ExportRow) {
    return {
      key: r.key,
      ref: refOf(r.key),
      tenant: r.tenant,
      subject: r.subject,
      tool: r.tool,
      status: r.status,
      createdAt: r.created_at_exact,
      updatedAt: r.updated_at_iso,
      stuck: r.stuck,
      stuckAfterMs: stuckAfterMs(config, r.tool),
      response: r.response === null ? null : redact(r.response),
    };
  }

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
        let chunk = "";
        for (const r of batch) {
          const item = row(r);
          chunk +=
            format === "csv"
              ? csvLine([
                  item.key,
                  item.ref,
                  item.tenant,
                  item.subject,
                  item.tool,
                  item.status,
                  String(item.stuck),
                  item.createdAt,
                  item.updatedAt,
                  item.response === null ? null : JSON.stringify(item.response),
                ])
              : `${written === 0 ? "\n" : ",\n"}${JSON.stringify(item)}`;
          written += 1;
        }
        if (chunk) controller.enqueue(encoder.encode(chunk));
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

/**
 * RFC 4180: a cell with a comma, quote, CR or LF is quoted and its quotes doubled. A cell that
 * a spreadsheet would run as a formula (= + - @, tab, CR first) gets a leading apostrophe:
 * subjects come from callers, and a CSV opened in Excel must not execute them.
 */
export function csvCell(value: string | null): string {
  if (value === null) return "";
  // Most cells need neither (one scan instead of two).
  if (!NEEDS_CARE.test(value)) return value;
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const NEEDS_CARE = /^[=+\-@\t\r]|[",\r\n]/;

function csvLine(cells: readonly (string | null)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
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
