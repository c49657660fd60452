import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { exportRecords } from "@/lib/records/export-records";
import { getRecordFacets, type RecordFacets } from "@/lib/records/facet-counts";
import { decodeCursor, encodeCursor } from "@/lib/records/list-cursor";
import {
  EMPTY_FILTER,
  parseRecordsExportQuery,
  parseRecordsQuery,
  UNRECORDED_TOOL,
  type PageSize,
  type RecordsFilter,
  type RecordsQuery,
} from "@/lib/records/list-filters";
import { listRecords, type RecordListItem } from "@/lib/records/list-records";
import { REDACTED } from "@/lib/privacy/redact";
import { connectTestDb } from "../helpers/db";

// Every tenant here is this file's own: other tests share the database.
const run = randomBytes(3).toString("hex");
const T = { a: `lr-${run}-a`, b: `lr-${run}-b`, c: `lr-${run}-c`, d: `lr-${run}-d`, e: `lr-${run}-e` };

const config = parseConfig(
  JSON.stringify({
    tools: { charge_card: { stuckAfter: "5m" }, create_shipment: { stuckAfter: "1h" } },
    defaultStuckAfter: "10m",
    redact: ["$..card", "$..email"],
  }),
);
const NOW = new Date("2026-11-29T12:00:00.000Z");

function actor(role: Actor["role"], tenants: string[]): Actor {
  return { kind: "system", id: `test-${role}`, name: `test-${role}`, displayName: "test", role, tenants };
}

type Seed = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  createdAt: string;
  response?: unknown;
};

const key = (label: string) => createHash("sha256").update(`${run}|${label}`).digest("hex");

/** created_at with microseconds: rows 400 µs apart often share a millisecond, which a Date-based cursor would blur. */
function microsAgo(us: number): string {
  const base = NOW.getTime() * 1000 - 3_600_000_000; // an hour before NOW, all rows older than that
  const t = base - us;
  const ms = Math.floor(t / 1000);
  const frac = String(t % 1000).padStart(3, "0");
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, `.$1${frac}Z`);
}

function query(
  filter: Partial<RecordsFilter>,
  paging: Partial<Pick<RecordsQuery, "cursor" | "dir" | "limit">> = {},
): RecordsQuery {
  return { ...EMPTY_FILTER, ...filter, cursor: null, dir: "next", limit: 25, ...paging };
}

/** Newest first, ties on created_at broken by key — the order the list promises (C collation = code-unit order). */
function newestFirst(a: Seed, b: Seed): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.key < b.key ? 1 : a.key > b.key ? -1 : 0;
}

describe("records list, facets and export (real PostgreSQL)", () => {
  const db = connectTestDb();
  const seeds: Seed[] = [];

  beforeAll(async () => {
    // Tenant a: 130 rows for paging; every third row shares its created_at with the next two (ties).
    for (let i = 0; i < 130; i++) {
      seeds.push({
        key: key(`a${i}`),
        tenant: T.a,
        subject: `user-${i % 7}`,
        tool: ["charge_card", "create_shipment", "send_receipt_email", null][i % 4] ?? null,
        status: i % 10 === 0 ? "in_progress" : i === 7 ? "failed" : "completed",
        createdAt: microsAgo(Math.floor(i / 3) * 400), // some groups share a millisecond, some do not
        response: { charge_id: `ch_${i}`, card: { last4: "4242" }, customer: { email: "pat@example.com" } },
      });
    }
    // Tenant b: stuck thresholds per tool, measured against NOW.
    const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString().replace(/Z$/, "000Z");
    const stuckSeeds: [string, string | null, string, number][] = [
      ["b-card-6m", "charge_card", "in_progress", 6], // 5m threshold: stuck
      ["b-card-4m", "charge_card", "in_progress", 4], // not yet
      ["b-ship-30m", "create_shipment", "in_progress", 30], // 1h threshold: not yet
      ["b-ship-61m", "create_shipment", "in_progress", 61], // stuck
      ["b-other-11m", "send_receipt_email", "in_progress", 11], // default 10m: stuck
      ["b-other-9m", "send_receipt_email", "in_progress", 9], // not yet
      ["b-null-11m", null, "in_progress", 11], // unrecorded tool, default: stuck
      ["b-card-done", "charge_card", "completed", 120], // completed is never stuck
    ];
    for (const [label, tool, status, minutes] of stuckSeeds) {
      seeds.push({ key: key(label), tenant: T.b, subject: label, tool, status, createdAt: ago(minutes) });
    }
    // Tenant c: subjects that CSV must escape; one status the protocol never writes.
    const tricky = ['O\'Brien, "Pat"', "line one\nline two", '=HYPERLINK("http://x")', "plain"];
    tricky.forEach((subject, i) =>
      seeds.push({
        key: key(`c${i}`),
        tenant: T.c,
        subject,
        tool: "charge_card",
        status: i === 3 ? "weird_status" : "completed",
        createdAt: microsAgo(1000 + i),
        response: { card: { number: "4242424242424242" }, ok: true },
      }),
    );
    // Tenant d: another tenant's row, for the scoping checks.
    seeds.push({
      key: key("d0"),
      tenant: T.d,
      subject: "secret",
      tool: "charge_card",
      status: "in_progress",
      createdAt: microsAgo(5),
    });
    // Tenant e: 8 open claims, all in_progress, and 2 completed rows, for the count cap.
    for (let i = 0; i < 10; i++) {
      seeds.push({
        key: key(`e${i}`),
        tenant: T.e,
        subject: `e-${i}`,
        tool: "charge_card",
        status: i < 8 ? "in_progress" : "completed",
        createdAt: microsAgo(2000 + i),
      });
    }

    await db.$executeRaw`
      INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at)
      SELECT k, t, s, tl, st, r::jsonb, c::timestamptz
      FROM unnest(${seeds.map((s) => s.key)}::text[], ${seeds.map((s) => s.tenant)}::text[], ${seeds.map((s) => s.subject)}::text[],
                  ${seeds.map((s) => s.tool)}::text[], ${seeds.map((s) => s.status)}::text[],
                  ${seeds.map((s) => (s.response === undefined ? null : JSON.stringify(s.response)))}::text[],
                  ${seeds.map((s) => s.createdAt)}::text[]) AS x(k, t, s, tl, st, r, c)`;
  });

  const admin = () => actor("admin", []);
  const seedsOf = (tenant: string) => seeds.filter((s) => s.tenant === tenant).sort(newestFirst);

  async function pageThrough(who: Actor, filter: Partial<RecordsFilter>, limit: PageSize) {
    const pages: RecordListItem[][] = [];
    const cursors: (string | null)[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 50; guard++) {
      const page = await listRecords(
        db,
        who,
        query(filter, { limit, cursor: cursor ? decodeCursor(cursor) : null }),
        config,
        NOW,
      );
      pages.push(page.records);
      cursors.push(page.prevCursor);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return { pages, cursors };
  }

  it("pages forward over 6 pages: every row exactly once, newest first, ties on created_at broken by key", async () => {
    const expected = seedsOf(T.a).map((s) => s.key);
    const { pages, cursors } = await pageThrough(admin(), { tenant: T.a }, 25);
    expect(pages.map((p) => p.length)).toEqual([25, 25, 25, 25, 25, 5]);
    expect(pages.flat().map((r) => r.key)).toEqual(expected);
    expect(cursors[0]).toBeNull(); // the first page has no newer page
    expect(cursors.slice(1).every((c) => c !== null)).toBe(true);
  });

  it("pages backward from the last page to the first, with the same pages in the same order", async () => {
    const forward = (await pageThrough(admin(), { tenant: T.a }, 25)).pages;
    let page = await listRecords(db, admin(), query({ tenant: T.a }), config, NOW);
    while (page.nextCursor)
      page = await listRecords(
        db,
        admin(),
        query({ tenant: T.a }, { cursor: decodeCursor(page.nextCursor) }),
        config,
        NOW,
      );
    const backward: RecordListItem[][] = [page.records];
    while (page.prevCursor) {
      page = await listRecords(
        db,
        admin(),
        query({ tenant: T.a }, { cursor: decodeCursor(page.prevCursor), dir: "prev" }),
        config,
        NOW,
      );
      backward.unshift(page.records);
    }
    expect(backward.map((p) => p.map((r) => r.key))).toEqual(forward.map((p) => p.map((r) => r.key)));
    expect(page.prevCursor).toBeNull(); // arrived back at the newest
    expect(page.nextCursor).not.toBeNull();
  });

  it("filters by tool (and unrecorded), status (any text), tenant and time window", async () => {
    const a = seedsOf(T.a);
    const keys = async (filter: Partial<RecordsFilter>) =>
      (await listRecords(db, admin(), query(filter, { limit: 200 }), config, NOW)).records.map((r) => r.key);

    expect(await keys({ tenant: T.a, tool: "create_shipment" })).toEqual(
      a.filter((s) => s.tool === "create_shipment").map((s) => s.key),
    );
    expect(await keys({ tenant: T.a, tool: UNRECORDED_TOOL })).toEqual(
      a.filter((s) => s.tool === null).map((s) => s.key),
    );
    expect(await keys({ tenant: T.a, status: "in_progress" })).toEqual(
      a.filter((s) => s.status === "in_progress").map((s) => s.key),
    );
    expect(await keys({ tenant: T.a, status: "failed" })).toEqual([key("a7")]);
    expect(await keys({ tenant: T.c, status: "weird_status" })).toEqual([key("c3")]);

    const from = new Date(a[99]!.createdAt);
    const to = new Date(a[20]!.createdAt);
    const inWindow = a
      .filter((s) => Date.parse(s.createdAt) >= from.getTime() && Date.parse(s.createdAt) < to.getTime())
      .map((s) => s.key);
    expect(inWindow.length).toBeGreaterThan(50);
    expect(await keys({ tenant: T.a, from, to })).toEqual(inWindow);

    const weird = (await listRecords(db, admin(), query({ tenant: T.c }), config, NOW)).records.find(
      (r) => r.key === key("c3"),
    );
    expect(weird).toMatchObject({ status: "weird_status", stuck: false, ref: key("c3").slice(0, 12) });
  });

  it("stuck only: in_progress past each tool's own threshold, the default for other and unrecorded tools", async () => {
    const page = await listRecords(db, admin(), query({ tenant: T.b, stuck: true }), config, NOW);
    expect(page.records.map((r) => r.subject).sort()).toEqual(["b-card-6m", "b-null-11m", "b-other-11m", "b-ship-61m"]);
    expect(page.records.every((r) => r.stuck)).toBe(true);
    expect(page.records.find((r) => r.subject === "b-ship-61m")?.stuckAfterMs).toBe(3_600_000);
    expect(page.records.find((r) => r.subject === "b-null-11m")?.stuckAfterMs).toBe(600_000);

    // The same rows, unfiltered, carry the same verdict row by row.
    const all = await listRecords(db, admin(), query({ tenant: T.b }), config, NOW);
    expect(
      all.records
        .filter((r) => r.stuck)
        .map((r) => r.key)
        .sort(),
    ).toEqual(page.records.map((r) => r.key).sort());
  });

  it("a tenant-limited actor never sees another tenant's rows, whatever the filter says", async () => {
    const limited = actor("viewer", [T.a]);
    const everything = await listRecords(db, limited, query({}, { limit: 200 }), config, NOW);
    expect(everything.records.length).toBe(130);
    expect(everything.records.every((r) => r.tenant === T.a)).toBe(true);
    expect((await listRecords(db, limited, query({ tenant: T.d }), config, NOW)).records).toEqual([]);

    const facets = await getRecordFacets(db, limited, { ...EMPTY_FILTER, tenant: T.d }, config, NOW);
    expect(facets.status.entries).toEqual([]);
    expect(facets.tool.entries).toEqual([]);

    const file = await readAll(
      exportRecords(db, limited, { ...EMPTY_FILTER, tenant: T.d }, config, NOW, { format: "csv" }).stream,
    );
    expect(file).not.toContain("secret");
  });

  const exact = (value: string | null, count: number) => ({
    value,
    count,
    estimate: false,
    atLeast: false,
    basis: null,
  });
  const atLeast = (value: string | null, count: number) => ({
    value,
    count,
    estimate: false,
    atLeast: true,
    basis: null,
  });

  it("facets count per status and tool for the current filter, each ignoring its own dimension", async () => {
    const facets = await getRecordFacets(
      db,
      actor("viewer", [T.a]),
      { ...EMPTY_FILTER, status: "in_progress" },
      config,
      NOW,
    );
    expect(facets.status.entries).toEqual([exact("completed", 116), exact("in_progress", 13), exact("failed", 1)]);
    expect(facets.status.note).toBeNull();
    // tool counts among in_progress rows (i % 10 === 0 → tools cycle every 4: 0,2,0,2…)
    const tools = Object.fromEntries(facets.tool.entries.map((e) => [String(e.value), e.count]));
    expect(tools).toEqual({ charge_card: 7, send_receipt_email: 6 });

    // Past the exact-count limit a filtered view is still counted, never estimated: open statuses up to
    // their cap, completed up to its own (1,000).
    const big = await getRecordFacets(db, admin(), { ...EMPTY_FILTER, tenant: T.a }, config, NOW, { exactRowLimit: 0 });
    expect(big.status).toEqual({
      entries: [exact("completed", 116), exact("in_progress", 13), exact("failed", 1)],
      note: null,
    });
    const capped = await getRecordFacets(db, admin(), { ...EMPTY_FILTER, tenant: T.a }, config, NOW, {
      exactRowLimit: 0,
      rowsCountCap: 100,
    });
    expect(capped.status.entries.find((e) => e.value === "completed")).toEqual(atLeast("completed", 100));
    expect(capped.status.note).toBe(
      '"+" is a lower bound: counting stops after the newest 100 completed records to stay fast',
    );
  });

  it("a filtered view is never a planner estimate, even with fresh statistics: the planner would take the filter and the value as independent", async () => {
    await db.$executeRawUnsafe("ANALYZE idempotency");
    const filter = { ...EMPTY_FILTER, tenant: T.a };
    const facets = await getRecordFacets(db, admin(), filter, config, NOW, { exactRowLimit: 0 });
    expect([...facets.status.entries, ...facets.tool.entries].some((e) => e.estimate || e.basis !== null)).toBe(false);
    const tools = Object.fromEntries(facets.tool.entries.map((e) => [String(e.value), e.count]));
    expect(tools).toEqual({ charge_card: 33, create_shipment: 33, send_receipt_email: 32, null: 32 });
  });

  it("past the exact-count limit, open claims are counted up to the cap: beyond it each entry is a lower bound", async () => {
    const open = (facets: RecordFacets) => facets.status.entries.filter((e) => e.value !== "completed");
    const facetsOf = (tenant: string, countCap: number, who = admin()) =>
      getRecordFacets(db, who, { ...EMPTY_FILTER, tenant }, config, NOW, {
        exactRowLimit: 0,
        countCap,
        rowsCountCap: countCap,
      });

    // Tenant a has 14 open claims (13 in_progress, 1 failed). A cap of 14 still counts them exactly.
    expect(open(await facetsOf(T.a, 14))).toEqual([exact("in_progress", 13), exact("failed", 1)]);
    // A cap of 13: the 14 rows read are all of them, but the count cannot know that: both are lower bounds.
    const justOver = await facetsOf(T.a, 13);
    expect(open(justOver)).toEqual([atLeast("in_progress", 13), atLeast("failed", 1)]);
    expect(justOver.status.note).toBe(
      '"+" is a lower bound: counting stops after the newest 13 open claims to stay fast; a status not among them is not listed; ' +
        '"+" is a lower bound: counting stops after the newest 13 completed records to stay fast',
    );

    // Tenant e: 8 in_progress claims, a cap of 5 — one status reaching the cap shows the cap ("5+"), never the 6 rows read.
    expect(open(await facetsOf(T.e, 5))).toEqual([atLeast("in_progress", 5)]);
    // Several statuses sharing a capped sample: each a lower bound, together at least the cap.
    const shared = open(await facetsOf(T.a, 5));
    expect(shared.every((e) => e.atLeast && !e.estimate)).toBe(true);
    expect(shared.reduce((sum, e) => sum + e.count, 0)).toBeGreaterThanOrEqual(5);
    expect(shared.find((e) => e.value === "in_progress")?.count).toBeLessThanOrEqual(5);

    // Tools among open claims (read from the partial index however few match) are counted up to the cap too,
    // even below the exact-count limit: tenant a's 13 in_progress claims are 7 charge_card, 6 send_receipt_email.
    const openTools = (countCap: number) =>
      getRecordFacets(db, admin(), { ...EMPTY_FILTER, tenant: T.a, status: "in_progress" }, config, NOW, {
        countCap,
      }).then((f) => f.tool);
    expect(await openTools(13)).toEqual({
      entries: [exact("charge_card", 7), exact("send_receipt_email", 6)],
      note: null,
    });
    const cappedTools = await openTools(5);
    expect(cappedTools.entries.every((e) => e.atLeast && e.count <= 5)).toBe(true);
    expect(cappedTools.entries.reduce((sum, e) => sum + e.count, 0)).toBe(6); // the newest 6 split over both tools
    expect(cappedTools.note).toMatch(
      /counting stops after the newest 5 open claims .*; a tool not among them is not listed$/,
    );

    // The stuck filter's statuses are open claims too: tenant b's 4 stuck claims, a cap of 3.
    const stuck = await getRecordFacets(db, admin(), { ...EMPTY_FILTER, tenant: T.b, stuck: true }, config, NOW, {
      countCap: 3,
    });
    expect(stuck.status.entries).toEqual([atLeast("in_progress", 3)]);
    const stuckExact = await getRecordFacets(db, admin(), { ...EMPTY_FILTER, tenant: T.b, stuck: true }, config, NOW, {
      countCap: 4,
    });
    expect(stuckExact.status).toEqual({ entries: [exact("in_progress", 4)], note: null });

    // A tenant-limited actor never gets planner estimates: completed and the tools are capped counts too.
    const limited = await facetsOf(T.a, 5, actor("viewer", [T.a]));
    expect(limited.status.entries.find((e) => e.value === "completed")).toEqual(atLeast("completed", 5));
    expect(limited.status.entries.every((e) => !e.estimate && e.atLeast)).toBe(true);
    expect(limited.tool.entries.every((e) => !e.estimate && e.atLeast)).toBe(true);
    // Tenant a's ~32 rows per tool: the tools of the 6 rows read (cap + 1), never 5 of each tool.
    const toolTotal = limited.tool.entries.reduce((sum, e) => sum + e.count, 0);
    expect(toolTotal).toBeGreaterThanOrEqual(5);
    expect(toolTotal).toBeLessThanOrEqual(6);
    expect(limited.tool.note).toMatch(
      /counting stops after the newest 5 matching records .*; a tool not among them is not listed$/,
    );
    // Below the cap the tenant-limited counts are exact.
    const limitedExact = await facetsOf(T.e, 100, actor("viewer", [T.e]));
    expect(limitedExact.status).toEqual({ entries: [exact("in_progress", 8), exact("completed", 2)], note: null });
    expect(limitedExact.tool).toEqual({ entries: [exact("charge_card", 10)], note: null });
  });

  it("rejects a malformed cursor, an unknown filter and bad dates, naming each", () => {
    const parse = (qs: string) => parseRecordsQuery(new URLSearchParams(qs), { unknownParams: "reject" });
    const problems = (qs: string) => {
      const result = parse(qs);
      return result.ok ? [] : result.problems.map((p) => p.message);
    };
    expect(problems("cursor=not-a-cursor")).toEqual([expect.stringMatching(/^cursor: not a cursor/)]);
    expect(problems(`cursor=${encodeCursor({ createdAt: "2026-02-30T00:00:00.000000Z", key: "k" })}`)).toEqual([
      expect.stringMatching(/^cursor:/),
    ]);
    expect(problems("tenant=acme&colour=red&sort=asc")).toEqual([
      expect.stringMatching(/unknown parameters "colour", "sort"/),
    ]);
    expect(problems("from=yesterday")).toEqual([expect.stringMatching(/^from: expected an ISO 8601 date/)]);
    expect(problems("to=2026-11-29T10:00")).toEqual([expect.stringMatching(/^to: expected .* with a zone/)]);
    expect(problems("from=2026-11-29&to=2026-11-28")).toEqual([
      expect.stringMatching(/from .* must be earlier than to/),
    ]);
    expect(problems("limit=1000")).toEqual([expect.stringMatching(/^limit: expected one of 25, 50, 100, 200/)]);
    expect(problems("stuck=yes")).toEqual([expect.stringMatching(/^stuck: expected true or false/)]);
    expect(problems("tenant=a&tenant=b")).toEqual([expect.stringMatching(/^tenant: given 2 times/)]);
    expect(problems("dir=prev")).toEqual([expect.stringMatching(/^dir: prev needs a cursor/)]);
    // The page ignores unknown parameters (tracking noise), never bad values of known ones.
    expect(parseRecordsQuery(new URLSearchParams("utm_source=mail"), { unknownParams: "ignore" }).ok).toBe(true);
    expect(parseRecordsExportQuery(new URLSearchParams("format=xml")).ok).toBe(false);
    expect(parseRecordsExportQuery(new URLSearchParams("format=csv&cursor=x")).ok).toBe(false);

    const ok = parse(
      `tenant=acme&subject=user_42&tool=${encodeURIComponent(UNRECORDED_TOOL)}&stuck=true&from=2026-11-29&to=2026-11-29T18:30:00%2B01:00&limit=100`,
    );
    expect(ok).toEqual({
      ok: true,
      value: {
        tenant: "acme",
        subject: "user_42",
        tool: UNRECORDED_TOOL,
        status: null,
        stuck: true,
        field: null,
        from: new Date("2026-11-29T00:00:00Z"),
        to: new Date("2026-11-29T17:30:00Z"),
        cursor: null,
        dir: "next",
        limit: 100,
      },
    });
  });

  it("exports CSV with RFC 4180 escaping, formula-guarded cells and redaction for every role", async () => {
    const csv = await readAll(
      exportRecords(db, actor("viewer", []), { ...EMPTY_FILTER, tenant: T.c }, config, NOW, { format: "csv" }).stream,
    );
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([
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
    ]);
    expect(rows.length).toBe(5); // header + 4, no trailing line when complete
    const subjects = rows.slice(1).map((r) => r[3]);
    expect(subjects).toEqual(['O\'Brien, "Pat"', "line one\nline two", '\'=HYPERLINK("http://x")', "plain"]);
    expect(csv).toContain('"O\'Brien, ""Pat"""');
    const response = JSON.parse(rows[1]![9]!);
    expect(response).toEqual({ card: REDACTED, ok: true });
    expect(rows[1]![7]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const operatorCsv = await readAll(
      exportRecords(db, actor("operator", []), { ...EMPTY_FILTER, tenant: T.c }, config, NOW, { format: "csv" }).stream,
    );
    expect(JSON.parse(parseCsv(operatorCsv)[1]![9]!)).toEqual({ card: REDACTED, ok: true }); // a file travels: reveal is per record
    expect(operatorCsv).not.toContain("4242424242424242");
  });

  // The export writes its cells from the database's text (times, the stuck verdict), the list from Dates
  // and isStuck: one row of each stuck case, and updated_at fractions that round differently from how they cut.
  it("exports each row's stuck verdict and times as the list shows them", async () => {
    const tenant = `lr-${run}-f`;
    const rows: [string, string | null, number, string | null][] = [
      ["f-null-6m", null, 6, null], // past charge_card's 5m, not the default 10m: the SQL condition reads NULL here
      ["f-null-11m", null, 11, "2026-11-29T11:59:59.999999Z"],
      ["f-card-7m", "charge_card", 7, "2026-11-29T11:58:00.000500Z"],
      ["f-ship-30m", "create_shipment", 30, "2026-11-29T11:31:00.291000Z"],
    ];
    for (const [label, tool, minutes, updatedAt] of rows)
      await db.$executeRaw`
        INSERT INTO idempotency (key, tenant, subject, tool, status, created_at, updated_at)
        VALUES (${key(label)}, ${tenant}, ${label}, ${tool}, 'in_progress',
                ${new Date(NOW.getTime() - minutes * 60_000)}::timestamptz, ${updatedAt}::timestamptz)`;
    for (const t of [tenant, T.b]) {
      const listed = await listRecords(db, admin(), query({ tenant: t }, { limit: 100 }), config, NOW);
      const exported = JSON.parse(
        await readAll(
          exportRecords(db, admin(), { ...EMPTY_FILTER, tenant: t }, config, NOW, { format: "json" }).stream,
        ),
      ) as { records: (RecordListItem & { response: unknown })[] };
      // The export's createdAt has all six microsecond digits, the list's the milliseconds.
      const cut = (item: RecordListItem) => ({ ...item, createdAt: item.createdAt.slice(0, 23) });
      expect(exported.records.map(({ response: _, ...item }) => cut(item))).toEqual(listed.records.map(cut));
      if (t === tenant)
        expect(exported.records.map((r) => [r.subject, r.stuck, r.updatedAt])).toEqual([
          ["f-null-6m", false, null],
          ["f-card-7m", true, "2026-11-29T11:58:00.000Z"],
          ["f-null-11m", true, "2026-11-29T11:59:59.999Z"],
          ["f-ship-30m", false, "2026-11-29T11:31:00.291Z"],
        ]);
    }
  });

  it("stops at the bound across batches and says so; JSON is one valid document", async () => {
    const csv = await readAll(
      exportRecords(db, admin(), { ...EMPTY_FILTER, tenant: T.a }, config, NOW, {
        format: "csv",
        maxRows: 60,
        batchSize: 25,
      }).stream,
    );
    const lines = parseCsv(csv);
    expect(lines.length).toBe(1 + 60 + 1);
    expect(lines.slice(1, 61).map((r) => r[0])).toEqual(
      seedsOf(T.a)
        .slice(0, 60)
        .map((s) => s.key),
    );
    expect(lines[61]![0]).toMatch(/^# truncated: the export stops at 60 rows/);

    const json = JSON.parse(
      await readAll(
        exportRecords(db, actor("viewer", []), { ...EMPTY_FILTER, tenant: T.a }, config, NOW, {
          format: "json",
          maxRows: 200,
          batchSize: 40,
        }).stream,
      ),
    );
    expect(json.count).toBe(130);
    expect(json.truncated).toBe(false);
    expect(json.redacted).toBe(true);
    expect(json.records.map((r: { key: string }) => r.key)).toEqual(seedsOf(T.a).map((s) => s.key));
    expect(json.records[0].response.customer.email).toBe(REDACTED);

    const exactly = JSON.parse(
      await readAll(
        exportRecords(db, admin(), { ...EMPTY_FILTER, tenant: T.a }, config, NOW, { format: "json", maxRows: 130 })
          .stream,
      ),
    );
    expect([exactly.count, exactly.truncated]).toEqual([130, false]); // reaching the bound exactly is not a truncation
  });
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** A strict RFC 4180 reader (quoted cells, doubled quotes, CRLF), independent of the writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}
