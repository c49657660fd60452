import { refOf } from "idem-guard";
import { compileRedaction } from "@/lib/privacy/compiled-redaction";
import type { Redaction } from "@/lib/privacy/redact";
import type { ExportFormat } from "@/lib/records/list-filters";

// What an export writes for its rows. Pure and free of "server-only": the export's worker thread
// (lib/records/export-worker.ts) runs it off the server's event loop.

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

/**
 * One row of an export as the database wrote its cells: timestamps as text (no Date parsed and written
 * out again, twice a row, 100,000 rows a file) and the stored response as its JSON text, parsed where
 * it is redacted.
 */
export type ExportRow = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  stuck: boolean;
  created_at_exact: string;
  updated_at_iso: string | null;
  response: string | null;
};

/** How a batch of rows is written: the same for every batch of one export. */
export type BatchFormat = {
  format: ExportFormat;
  redaction: Redaction;
  /** The stuck threshold of the tools that have their own, and everyone else's (the JSON rows say it). */
  stuckAfterMs: { byTool: Readonly<Record<string, number>>; otherwise: number };
};

/** A batch's text. `first`: no row came before it (a JSON file's first row takes no comma). */
export type FormatBatch = (rows: readonly ExportRow[], first: boolean) => string;

/** The writer of one export's batches: its redaction compiled once. */
export function batchFormatter({ format, redaction, stuckAfterMs }: BatchFormat): FormatBatch {
  const redact = compileRedaction(redaction);
  const response = (r: ExportRow) => {
    // A stored JSON null is written as no response, as SQL NULL is.
    const parsed: unknown = r.response === null ? null : JSON.parse(r.response);
    return parsed === null ? null : redact(parsed);
  };
  if (format === "csv") {
    return (rows) => {
      let chunk = "";
      for (const r of rows) {
        const redacted = response(r);
        chunk += csvLine([
          r.key,
          refOf(r.key),
          r.tenant,
          r.subject,
          r.tool,
          r.status,
          String(r.stuck),
          r.created_at_exact,
          r.updated_at_iso,
          redacted === null ? null : JSON.stringify(redacted),
        ]);
      }
      return chunk;
    };
  }
  return (rows, first) => {
    let chunk = "";
    rows.forEach((r, i) => {
      // A records list item with its exact creation time and its redacted response, in that key order.
      const item = {
        key: r.key,
        ref: refOf(r.key),
        tenant: r.tenant,
        subject: r.subject,
        tool: r.tool,
        status: r.status,
        createdAt: r.created_at_exact,
        updatedAt: r.updated_at_iso,
        stuck: r.stuck,
        stuckAfterMs: (r.tool !== null ? stuckAfterMs.byTool[r.tool] : undefined) ?? stuckAfterMs.otherwise,
        response: response(r),
      };
      chunk += `${first && i === 0 ? "\n" : ",\n"}${JSON.stringify(item)}`;
    });
    return chunk;
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

export function csvLine(cells: readonly (string | null)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
