import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { configSchema } from "@/lib/config/schema";
import { exactTimeSql, isoMillisSql } from "@/lib/format/exact-time";
import { connectionSettingsOf, createPrismaClient, rawPoolOf } from "@/lib/db/prisma";
import { batchFormatter, CSV_COLUMNS, csvLine, type ExportRow } from "@/lib/records/export-format";
import type { ExportChunk, ExportPlan, ExportReading } from "@/lib/records/export-reading";
import { exportRecords } from "@/lib/records/export-records";
import { readOnExportWorker, stopExportWorker } from "@/lib/records/export-worker-client";
import { EMPTY_FILTER } from "@/lib/records/list-filters";

// Issue #31, item 1: an export's rows are read and written on the export's worker thread, on connections of
// its own made with the export client's settings; the event loop only passes the bytes on.

const run = randomBytes(3).toString("hex");
const TENANTS = { a: `ew-${run}-a`, b: `ew-${run}-b` };
const NAME = `idem-test-export-${run}`;
const NOW = new Date();
const config = configSchema.parse({ redact: ["$..card"] });
const admin: Actor = { kind: "system", id: "test", name: "test", displayName: "test", role: "admin", tenants: [] };

// A client as lib/db builds the console's, with limits of its own that its connections must show.
const db = createPrismaClient(inject("databaseUrl"), 2, { connectMs: 5_000, statementMs: 43_210, lockMs: 1_234 }, NAME);
afterAll(async () => {
  await stopExportWorker();
  await db.$executeRaw`DELETE FROM idempotency WHERE tenant IN (${TENANTS.a}, ${TENANTS.b})`;
  await db.$disconnect();
});

/** A plan whose statement answers one row per `rows`, its cells saying which session read it. */
function probe(rows: number, response: string, overrides: Partial<ExportPlan> = {}): ExportPlan {
  const text = `SELECT lpad(to_hex(g), 64, '0') AS key, current_setting('application_name') AS tenant,
      current_setting('statement_timeout') AS subject, current_setting('lock_timeout') AS tool,
      'completed' AS status, false AS stuck, '2026-12-07T00:00:00.000000Z' AS created_at_exact,
      NULL AS updated_at_iso, $1::text AS response
    FROM generate_series(${rows}, 1, -1) g`;
  return {
    connection: connectionSettingsOf(db)!,
    statements: {
      first: {
        text: `${text} WHERE $2::text IS NULL AND $3::text IS NULL LIMIT $4`,
        values: [response, null, null, 0],
      },
      // Each batch walks on from the previous one's last key (the probe's rows all share one time).
      after: {
        text: `${text} WHERE $2::text IS NOT NULL AND lpad(to_hex(g), 64, '0') < $3::text LIMIT $4`,
        values: [response, "", "", 0],
        cursorAt: { createdAt: 1, key: 2 },
      },
    },
    format: {
      format: "csv",
      redaction: { paths: [], values: { email: false, cardNumbers: false } },
      stuckAfterMs: { byTool: {}, otherwise: 1 },
    },
    maxRows: 100_000,
    batchSize: 1_000,
    ...overrides,
  };
}

async function readAll(reading: ExportReading): Promise<string> {
  let text = "";
  for (let chunk: ExportChunk = await reading.next(); !("end" in chunk); chunk = await reading.next())
    text += new TextDecoder().decode(chunk.bytes);
  return text;
}

const fileOf = (tenant: string, format: "csv" | "json", batchSize = 7) =>
  new Response(exportRecords(db, admin, { ...EMPTY_FILTER, tenant }, config, NOW, { format, batchSize }).stream).text();

describe("the export's worker thread", () => {
  beforeAll(async () => {
    for (const [tenant, n] of [
      [TENANTS.a, 30],
      [TENANTS.b, 17],
    ] as const)
      await db.$executeRaw`
        INSERT INTO idempotency (key, tenant, subject, tool, status, created_at, response)
        SELECT md5(${tenant} || g) || md5(g::text), ${tenant}, '=cmd|' || g, 'charge_card', 'completed',
               now() - g * interval '1 second', jsonb_build_object('card', '4242', 'n', g)
        FROM generate_series(1, ${n}) g`;
  });

  it("reads an export's rows on connections of its own, not the event loop's pool, and writes them as this thread would", async () => {
    const pool = rawPoolOf(db)!;
    const sent = vi.spyOn(pool, "query");
    const connected = vi.spyOn(pool, "connect");
    const csv = await fileOf(TENANTS.a, "csv");
    expect([sent.mock.calls.length, connected.mock.calls.length]).toEqual([0, 0]);
    sent.mockRestore();
    connected.mockRestore();

    const rows = await db.$queryRawUnsafe<ExportRow[]>(
      `SELECT key, tenant, subject, tool, status, false AS stuck, ${exactTimeSql("created_at")} AS created_at_exact,
         ${isoMillisSql("updated_at")} AS updated_at_iso, response::text AS response
       FROM idempotency WHERE tenant = $1 ORDER BY created_at DESC, key DESC`,
      TENANTS.a,
    );
    expect(rows.length).toBe(30);
    const redaction = { paths: ["$..card"], values: { email: false, cardNumbers: false } };
    const here = batchFormatter({ format: "csv", redaction, stuckAfterMs: { byTool: {}, otherwise: 300_000 } });
    expect(csv).toBe(csvLine(CSV_COLUMNS) + here(rows, true));
    expect(csv).toContain("'=cmd|1,");
    // The response cells, not the whole file: a key's hex may hold "4242" by chance.
    expect(csv).toContain('""card"":""[redacted]""');
    expect(csv).not.toContain('""card"":""4242""');
  });

  it("connects with the export client's name and limits", async () => {
    const csv = await readAll(readOnExportWorker(probe(2, "{}")));
    expect(csv.split("\r\n")[0]).toContain(`,${NAME},43210ms,1234ms,completed,`);
  });

  it("refuses an export it cannot read or write, with the reason, and reads the next", async () => {
    await expect(readAll(readOnExportWorker(probe(3, "{not json")))).rejects.toThrow(/JSON/);
    const broken = probe(3, "{}");
    broken.statements.first.text =
      "SELECT no_such_column FROM idempotency WHERE $1::text = $2 AND $3::text = '' LIMIT $4";
    await expect(readAll(readOnExportWorker(broken))).rejects.toThrow(/no_such_column/);
    expect((await readAll(readOnExportWorker(probe(2_500, "{}")))).split("\r\n").length).toBe(2_501);
  });

  it("drops what arrives after a download is cut short: nothing written to the closed stream, no failure logged", async () => {
    const logged = vi.spyOn(console, "error");
    const shared = globalThis as { idemExportWorker?: { waiting: Map<number, unknown> } | null };
    for (let i = 0; i < 5; i += 1) {
      const file = exportRecords(db, admin, { ...EMPTY_FILTER, tenant: TENANTS.a }, config, NOW, {
        format: "csv",
        batchSize: 1,
      });
      const reader = file.stream.getReader();
      await reader.read(); // the header; its pull now waits for the first batch
      await reader.cancel();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(logged.mock.calls.filter(([tag]) => tag === "[export]")).toEqual([]);
    logged.mockRestore();
    expect(shared.idemExportWorker?.waiting.size).toBe(0);
  });

  it("keeps interleaved exports apart", async () => {
    const alone = [await fileOf(TENANTS.a, "csv", 4), await fileOf(TENANTS.b, "json", 3)];
    const together = await Promise.all([fileOf(TENANTS.a, "csv", 4), fileOf(TENANTS.b, "json", 3)]);
    expect(together).toEqual(alone);
    expect(JSON.parse(together[1]!).count).toBe(17);
  });

  it("is one worker for every copy of its module (the server's bundles each hold one)", async () => {
    const shared = globalThis as { idemExportWorker?: { worker: unknown } | null };
    await readAll(readOnExportWorker(probe(1, "{}")));
    const first = shared.idemExportWorker?.worker;
    expect(first).toBeDefined();
    vi.resetModules();
    const copy = await import("@/lib/records/export-worker-client");
    expect(copy.readOnExportWorker).not.toBe(readOnExportWorker);
    expect(await readAll(copy.readOnExportWorker(probe(1, "{}")))).toContain(NAME);
    expect(shared.idemExportWorker?.worker).toBe(first);
  });

  it("refuses the rest of an export when the worker stops, and starts another for the next", async () => {
    const reading = readOnExportWorker(probe(50_000, "{}"));
    expect("bytes" in (await reading.next())).toBe(true);
    await stopExportWorker();
    await expect(reading.next()).rejects.toThrow(/worker thread stopped/);
    expect(await readAll(readOnExportWorker(probe(1, "{}")))).toContain(NAME);
  });
});
