import { afterAll, describe, expect, it, vi } from "vitest";
import type { BatchFormat, ExportRow } from "@/lib/records/export-format";

// Issue #31, item 1: an export's rows are written on a worker thread, not on the event loop.
const formatterCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock("@/lib/records/export-format", async (original) => {
  const actual = await original<typeof import("@/lib/records/export-format")>();
  return {
    ...actual,
    // This thread's copy: any call here is a batch written on the event loop.
    batchFormatter: (format: BatchFormat) => {
      formatterCalls.count += 1;
      return actual.batchFormatter(format);
    },
  };
});

const { formatBatch, stopExportFormatter } = await import("@/lib/records/export-formatter");
const { batchFormatter } =
  await vi.importActual<typeof import("@/lib/records/export-format")>("@/lib/records/export-format");

const format = (overrides: Partial<BatchFormat> = {}): BatchFormat => ({
  format: "csv",
  redaction: { paths: ["$.card"], values: { email: true, cardNumbers: true } },
  stuckAfterMs: { byTool: { ship_parcel: 60_000 }, otherwise: 300_000 },
  ...overrides,
});

const row = (i: number, response: string | null): ExportRow => ({
  key: i.toString(16).padStart(64, "0"),
  tenant: "acme",
  subject: i % 2 ? '=HYPERLINK("x")' : `user, "${i}"`,
  tool: i % 3 ? "charge_card" : "ship_parcel",
  status: "completed",
  stuck: false,
  created_at_exact: `2026-12-06T06:00:00.${String(i).padStart(6, "0")}Z`,
  updated_at_iso: null,
  response,
});

const rows = [
  row(1, '{"card": "4242", "to": "ann@example.com", "amount": 1.0}'),
  row(2, null),
  row(3, "null"),
  row(4, '{"items": [{"pan": "4111 1111 1111 1111"}], "__proto__": {"x": 1}}'),
];
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("the export's worker thread", () => {
  afterAll(() => stopExportFormatter());

  it("writes a batch byte for byte as this thread would, CSV and JSON, and none of it here", async () => {
    for (const batch of [format(), format({ format: "json" })]) {
      for (const first of [true, false]) {
        const before = formatterCalls.count;
        const bytes = await formatBatch(batch, rows, first);
        expect(formatterCalls.count).toBe(before);
        expect(text(bytes)).toBe(batchFormatter(batch)(rows, first));
      }
    }
    const csv = text(await formatBatch(format(), rows, true));
    expect(csv).toContain('"{""card"":""[redacted]"",""to"":""[redacted]"",""amount"":1}"');
    expect(csv).toContain("'=HYPERLINK");
    expect(csv).not.toContain("4111");
    // SQL NULL and a stored JSON null are both written as no response.
    expect(csv.split("\r\n")[1]).toMatch(/,$/);
    expect(csv.split("\r\n")[2]).toMatch(/,$/);
  });

  it("refuses a batch it cannot write with the reason, and writes the next", async () => {
    await expect(formatBatch(format(), [row(5, "{not json")], true)).rejects.toThrow(/JSON/);
    expect(text(await formatBatch(format(), [row(6, "{}")], true))).toContain(",{}\r\n");
  });

  it("keeps batches of interleaved exports apart", async () => {
    const csv = format();
    const json = format({ format: "json", redaction: { paths: [], values: { email: false, cardNumbers: false } } });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => formatBatch(i % 2 ? json : csv, [rows[i % rows.length]!], i < 2)),
    );
    answers.forEach((bytes, i) =>
      expect(text(bytes)).toBe(batchFormatter(i % 2 ? json : csv)([rows[i % rows.length]!], i < 2)),
    );
  });

  it("is one worker for every copy of its module (the server's bundles each hold one)", async () => {
    const shared = globalThis as { idemExportFormatter?: { worker: unknown } | null };
    await formatBatch(format(), [row(8, "{}")], true);
    const first = shared.idemExportFormatter?.worker;
    expect(first).toBeDefined();
    vi.resetModules();
    const copy = await import("@/lib/records/export-formatter");
    expect(copy.formatBatch).not.toBe(formatBatch);
    expect(text(await copy.formatBatch(format(), [row(9, "{}")], true))).toContain(",{}\r\n");
    expect(shared.idemExportFormatter?.worker).toBe(first);
  });

  it("refuses the batches out when the worker stops, and starts another for the next", async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => row(i, '{"to": "ann@example.com"}'));
    const out = formatBatch(format(), many, true);
    await stopExportFormatter();
    await expect(out).rejects.toThrow(/worker thread stopped/);
    expect(text(await formatBatch(format(), [row(7, "{}")], true))).toContain(",{}\r\n");
  });
});
