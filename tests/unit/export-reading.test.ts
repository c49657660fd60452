import { describe, expect, it } from "vitest";
import type { BatchFormat, ExportRow } from "@/lib/records/export-format";
import { batchFormatter } from "@/lib/records/export-format";
import { readExport, type ExportChunk, type ExportPlan, type PlannedStatement } from "@/lib/records/export-reading";

// Issue #31, item 1: an export is read batch by batch on the worker thread, one batch ahead, never more than a few.

const format: BatchFormat = {
  format: "csv",
  redaction: { paths: [], values: { email: true, cardNumbers: false } },
  stuckAfterMs: { byTool: {}, otherwise: 300_000 },
};

const row = (i: number, response: string | null = `{"n": ${i}, "to": "ann@example.com"}`): ExportRow => ({
  // Newest first, ties broken by the key, descending.
  key: (10_000 - i).toString(16).padStart(64, "0"),
  tenant: "acme",
  subject: `user ${i}`,
  tool: "charge_card",
  status: "completed",
  stuck: false,
  // Row 0 is the newest; every two rows share a time.
  created_at_exact: `2026-12-06T06:00:${String(59 - Math.floor(i / 2)).padStart(2, "0")}.000000Z`,
  updated_at_iso: null,
  response,
});

/** The statements' shape as exportStatements builds them: filter values first, the cursor, the LIMIT last. */
const plan = (overrides: Partial<ExportPlan> = {}): ExportPlan => ({
  connection: {},
  statements: {
    first: { text: "first", values: ["acme", 0] },
    after: { text: "after", values: ["acme", "cursor-at", "cursor-key", 0], cursorAt: { createdAt: 1, key: 2 } },
  },
  format,
  maxRows: 1_000,
  batchSize: 3,
  ...overrides,
});

/** A table in keyset order that answers the plan's statements as PostgreSQL would, and keeps what it was sent. */
function table(rows: ExportRow[]) {
  const sent: PlannedStatement[] = [];
  let release: (() => void) | null = null;
  let held = false;
  const query = async (statement: PlannedStatement) => {
    sent.push(statement);
    if (held) await new Promise<void>((resolve) => (release = resolve));
    const limit = Number(statement.values.at(-1));
    if (statement.text === "first") return rows.slice(0, limit);
    const [at, key] = [statement.values[1] as string, statement.values[2] as string];
    const from = rows.findIndex((r) => r.created_at_exact < at || (r.created_at_exact === at && r.key < key));
    return from < 0 ? [] : rows.slice(from, from + limit);
  };
  return {
    query,
    sent,
    hold: () => void (held = true),
    letGo: () => {
      held = false;
      release?.();
    },
  };
}

const text = (chunk: ExportChunk) => ("bytes" in chunk ? new TextDecoder().decode(chunk.bytes) : "");
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

async function readAll(reading: ReturnType<typeof readExport>) {
  const chunks: ExportChunk[] = [];
  for (let chunk = await reading.next(); ; chunk = await reading.next()) {
    chunks.push(chunk);
    if ("end" in chunk) return chunks;
  }
}

describe("an export's reading on the worker thread", () => {
  it("walks the keyset from each batch's last row, asks one row more than it takes, and writes each batch once", async () => {
    const rows = Array.from({ length: 10 }, (_, i) => row(i));
    const db = table(rows);
    const chunks = await readAll(readExport(db.query, plan()));
    expect(chunks.map(text).join("")).toBe(batchFormatter(format)(rows, true));
    expect(chunks.at(-1)).toEqual({ end: { written: 10, truncated: false } });
    expect(db.sent.map((s) => [s.text, ...s.values])).toEqual([
      ["first", "acme", 4],
      ["after", "acme", rows[2]!.created_at_exact, rows[2]!.key, 4],
      ["after", "acme", rows[5]!.created_at_exact, rows[5]!.key, 4],
      ["after", "acme", rows[8]!.created_at_exact, rows[8]!.key, 4],
    ]);
  });

  it("stops at the bound and says whether rows were left", async () => {
    const rows = Array.from({ length: 8 }, (_, i) => row(i));
    const cut = await readAll(readExport(table(rows).query, plan({ maxRows: 5 })));
    expect(cut.at(-1)).toEqual({ end: { written: 5, truncated: true } });
    expect(cut.filter((c) => "rows" in c).map((c) => ("rows" in c ? c.rows : 0))).toEqual([3, 2]);
    const exact = table(rows);
    expect((await readAll(readExport(exact.query, plan({ maxRows: 8 })))).at(-1)).toEqual({
      end: { written: 8, truncated: false },
    });
    // The last batch asked for what was left of the bound, and one more.
    expect(exact.sent.map((s) => s.values.at(-1))).toEqual([4, 4, 3]);
  });

  it("reads a few batches ahead of a slow download, then waits for it", async () => {
    const db = table(Array.from({ length: 300 }, (_, i) => row(i)));
    const reading = readExport(db.query, plan());
    await reading.next();
    await settle();
    // One batch handed out, two written and waiting: then nothing until the next chunk is taken.
    expect(db.sent.length).toBe(3);
    await reading.next();
    await settle();
    expect(db.sent.length).toBe(4);
  });

  it("sends the next batch's statement before it writes the batch in hand", async () => {
    const statementsOutWhenWritten: number[] = [];
    const rows = Array.from({ length: 9 }, (_, i) => {
      const r = row(i);
      // Read when the row is written: how many statements had gone out by then.
      return Object.defineProperty(r, "response", {
        get: () => ((statementsOutWhenWritten[i] ??= db.sent.length), "{}"),
      });
    });
    const db = table(rows);
    await readAll(readExport(db.query, plan()));
    // Rows 0–2 were written once the statement for rows 3–5 had gone, rows 3–5 once the one for 6–8 had;
    // rows 6–8 came without a fourth row, so they were the last.
    expect(statementsOutWhenWritten).toEqual([2, 2, 2, 3, 3, 3, 3, 3, 3]);
  });

  it("stops reading when cancelled, a statement out included", async () => {
    const db = table(Array.from({ length: 300 }, (_, i) => row(i)));
    const reading = readExport(db.query, plan());
    await reading.next();
    await settle();
    db.hold();
    await reading.next(); // a ready batch is taken: the next statement goes out and waits
    await settle();
    const sent = db.sent.length;
    reading.cancel();
    db.letGo();
    await settle();
    expect(db.sent.length).toBe(sent);
  });

  it("answers a reader still waiting when cancelled, so nothing is left holding its request", async () => {
    const db = table(Array.from({ length: 10 }, (_, i) => row(i)));
    db.hold();
    const reading = readExport(db.query, plan());
    const waiting = reading.next();
    await settle();
    reading.cancel();
    db.letGo();
    await expect(waiting).rejects.toThrow(/cancelled/);
  });

  it("hands a failed statement's error to the reader and reads no more", async () => {
    let calls = 0;
    const reading = readExport(async () => {
      calls += 1;
      throw new Error("canceling statement due to statement timeout");
    }, plan());
    await expect(reading.next()).rejects.toThrow(/statement timeout/);
    await expect(reading.next()).rejects.toThrow(/statement timeout/);
    expect(calls).toBe(1);
  });

  it("refuses a batch it cannot write, with the reason", async () => {
    const reading = readExport(table([row(1, "{not json")]).query, plan());
    await expect(reading.next()).rejects.toThrow(/JSON/);
  });

  it("ends an export with no rows at once", async () => {
    const db = table([]);
    expect(await readAll(readExport(db.query, plan()))).toEqual([{ end: { written: 0, truncated: false } }]);
    expect(db.sent.length).toBe(1);
  });
});
