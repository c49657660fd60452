import { apiUrl } from "@/lib/api/api-url";
import { API_ROUTES } from "@/lib/api/routes";
import "server-only";
import pg from "pg";
import { buildToolsAudit } from "@/lib/annotations/build-audit";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { exactTimeSql } from "@/lib/format/exact-time";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { decodeCursor, encodeCursor } from "@/lib/records/list-cursor";
import { DEFAULT_PAGE_SIZE, EMPTY_FILTER, type RecordsQuery } from "@/lib/records/list-filters";
import { lookUpRefs } from "@/lib/records/lookup";
import { findBySearchableValues, searchableQuery } from "@/lib/search/find-by-searchable";
import { getRecordDetail } from "@/lib/records/record-detail";
import { loadRecordsListing } from "@/lib/records/records-listing";
import { resolveRecord } from "@/lib/resolve/resolve-record";
import { rollUpSettled } from "@/lib/metrics/roll-up-settled";
import { toExposition } from "@/lib/metrics/prometheus-exposition";
import { readScrapeFigures } from "@/lib/metrics/scrape-figures";
import { readDuplicates } from "@/lib/duplicates/duplicates-report";
import { DEFAULT_DUPLICATES_LIMIT } from "@/lib/duplicates/duplicates-params";
import { repeatDelayFigures } from "@/lib/repeats/repeat-figures";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { appendLiveTraffic, benchKey, HISTORY_HOURS } from "./load-bench-data";
import { redactionOf } from "@/lib/privacy/redact";

/** An HTTP request to the console's API, relative to its base URL. */
export type ApiRequest = { method: "GET" | "POST"; path: string; body?: unknown };

/**
 * One operation measured on both sides: `console` is the console's own function for it (its
 * statements are captured and replayed as the SQL side), `api` the same operation over HTTP.
 * Iteration k uses input k modulo the inputs; a case whose operation changes the row it acts on
 * (resolve) has `fresh` inputs: every SQL replay and every API call gets an input of its own.
 */
export type BenchCase = {
  name: string;
  /** Target p95 in ms, from issue #9; null where the issue sets none. */
  targets: { sqlP95Ms: number | null; apiP95Ms: number | null };
  inputs: string[];
  fresh?: boolean;
  /** Runs before the case is measured, outside the capture: what would have happened meanwhile (traffic, cron's roll-up). */
  prepare?(db: Db): Promise<void>;
  console(db: Db, input: string): Promise<unknown>;
  api(input: string): ApiRequest;
};

export type CaseContext = {
  actor: Actor;
  config: IdemConfig;
  rows: number;
  load: { rows: number; end: string };
  log: (line: string) => void;
};

const DEEP_ROWS = 100_000;

function listQuery(overrides: Partial<RecordsQuery> = {}): RecordsQuery {
  return { ...EMPTY_FILTER, cursor: null, dir: "next", limit: DEFAULT_PAGE_SIZE, ...overrides };
}

function recordsPath(params: Record<string, string>): string {
  return apiUrl(API_ROUTES.listRecords, {}, params);
}

/** Inputs drawn from the loaded data: keys spread over the table, cursors 100,000 rows deep, stuck claims. */
export async function prepareCases(url: string, context: CaseContext, freshNeeded: number): Promise<BenchCase[]> {
  const { actor, config, rows } = context;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let cursors: string[];
  let stuckKeys: string[];
  let receipts: string[];
  try {
    const depth = Math.min(DEEP_ROWS, Math.floor(rows / 2));
    cursors = [];
    for (let j = 0; j < 5; j += 1) {
      const { rows: at } = await client.query<{ created_at_exact: string; key: string }>(
        `SELECT ${exactTimeSql("created_at")} AS created_at_exact, key
         FROM idempotency ORDER BY created_at DESC, key DESC OFFSET $1 LIMIT 1`,
        [depth + j * 997],
      );
      const row = at[0];
      if (row) cursors.push(encodeCursor({ createdAt: row.created_at_exact, key: row.key }));
    }
    // Claims of a tool with a processor, older than any threshold: each resolved once.
    const { rows: stuck } = await client.query<{ key: string }>(
      `SELECT key FROM idempotency WHERE status = 'in_progress' AND tool = 'charge_card' AND created_at < now() - interval '1 hour'
       ORDER BY created_at LIMIT $1`,
      [freshNeeded],
    );
    stuckKeys = stuck.map((r) => r.key);
    // Receipts (the charge_card rows' $.id) spread over the table: one per twentieth of the key space.
    const { rows: found } = await client.query<{ receipt: string }>(
      `SELECT r.receipt FROM generate_series(0, 19) AS j,
         LATERAL (SELECT response #>> '{id}' AS receipt FROM idempotency
                  WHERE key >= lpad(to_hex(j * 13421772), 7, '0') AND tool = 'charge_card' AND status = 'completed'
                  ORDER BY key LIMIT 1) AS r`,
    );
    receipts = found.map((r) => r.receipt);
  } finally {
    await client.end();
  }
  // The metrics cases read the newest minutes live: append the traffic since the load first, then
  // roll up what has settled (as `idem rollup` from cron, or the previous request, would have).
  let appendedThrough = context.load.rows;
  const liveTraffic = async (db: Db) => {
    const before = appendedThrough;
    appendedThrough = await appendLiveTraffic(url, context.load, appendedThrough, new Date());
    const { minutes } = await rollUpSettled(db, new Date());
    context.log(
      `live traffic: ${(appendedThrough - before).toLocaleString("en-US")} rows appended up to 2 s ago (${(appendedThrough - context.load.rows).toLocaleString("en-US")} since the load); ${minutes.rolledUp} settled minutes rolled up`,
    );
  };
  const sampleKeys = Array.from({ length: 20 }, (_, j) => benchKey(1 + Math.floor(((j + 0.5) / 20) * rows)));
  const now = () => new Date();

  return [
    {
      name: "ref lookup",
      targets: { sqlP95Ms: 2, apiP95Ms: 50 },
      inputs: sampleKeys.map((key) => `Charge failed: already in progress (ref ${key.slice(0, 12)})`),
      // As the route calls it: with the configured searchable fields, every id-like word is looked for there too.
      console: (db, text) =>
        lookUpRefs(db, actor, text, {
          redact: redactionOf(config),
          searchFields: (values) => searchableQuery(actor, config, values),
        }),
      api: (text) => ({ method: "GET", path: apiUrl(API_ROUTES.lookup, {}, { q: text }) }),
    },
    {
      // The SQL side is the lookup's search (lib/search/find-by-searchable.ts); over HTTP the same
      // search as the records list serves it (field=receipt:…), facets included.
      name: "searchable field (receipt)",
      targets: { sqlP95Ms: 1, apiP95Ms: 100 },
      inputs: receipts,
      console: (db, receipt) => findBySearchableValues(db, actor, config, [receipt]),
      api: (receipt) => ({ method: "GET", path: recordsPath({ field: `receipt:${receipt}` }) }),
    },
    {
      name: "list, first page",
      targets: { sqlP95Ms: 5, apiP95Ms: 100 },
      inputs: [""],
      console: (db) => loadRecordsListing(db, actor, listQuery(), config, now()),
      api: () => ({ method: "GET", path: recordsPath({}) }),
    },
    {
      name: `list, ${Math.min(DEEP_ROWS, Math.floor(rows / 2)).toLocaleString("en-US")} rows deep (keyset)`,
      targets: { sqlP95Ms: 5, apiP95Ms: 100 },
      inputs: cursors,
      console: (db, cursor) =>
        loadRecordsListing(db, actor, listQuery({ cursor: decodeOrThrow(cursor) }), config, now()),
      api: (cursor) => ({ method: "GET", path: recordsPath({ cursor }) }),
    },
    {
      name: "filtered list (acme + charge_card + completed)",
      targets: { sqlP95Ms: 5, apiP95Ms: 100 },
      inputs: [""],
      console: (db) =>
        loadRecordsListing(
          db,
          actor,
          listQuery({ tenant: "acme", tool: "charge_card", status: "completed" }),
          config,
          now(),
        ),
      api: () => ({ method: "GET", path: recordsPath({ tenant: "acme", tool: "charge_card", status: "completed" }) }),
    },
    {
      name: "filtered list (acme + charge_card + in_progress)",
      targets: { sqlP95Ms: 5, apiP95Ms: 100 },
      inputs: [""],
      console: (db) =>
        loadRecordsListing(
          db,
          actor,
          listQuery({ tenant: "acme", tool: "charge_card", status: "in_progress" }),
          config,
          now(),
        ),
      api: () => ({ method: "GET", path: recordsPath({ tenant: "acme", tool: "charge_card", status: "in_progress" }) }),
    },
    {
      name: "stuck list",
      targets: { sqlP95Ms: 5, apiP95Ms: 100 },
      inputs: [""],
      console: (db) => loadRecordsListing(db, actor, listQuery({ stuck: true }), config, now()),
      api: () => ({ method: "GET", path: recordsPath({ stuck: "true" }) }),
    },
    {
      name: "metrics, 48 h",
      targets: { sqlP95Ms: 20, apiP95Ms: 200 },
      inputs: [""],
      prepare: liveTraffic,
      console: (db) => getMetrics(db, config, actor, { window: "48h", tool: null, tenant: null }, now()),
      api: () => ({ method: "GET", path: apiUrl(API_ROUTES.metrics, {}, { window: "48h" }) }),
    },
    {
      // Issue #17: a scrape every 15 s or so must cost little and take no lock a writer waits on.
      name: "prometheus scrape",
      targets: { sqlP95Ms: 50, apiP95Ms: null },
      inputs: [""],
      prepare: liveTraffic,
      console: async (db) =>
        toExposition(await readScrapeFigures(db, config, actor, now()), {
          version: "bench",
          consoleUrl: "http://bench",
        }),
      api: () => ({ method: "GET", path: apiUrl(API_ROUTES.prometheusScrape, {}) }),
    },
    {
      name: "record detail",
      targets: { sqlP95Ms: null, apiP95Ms: null },
      inputs: sampleKeys,
      console: (db, key) => getRecordDetail(db, config, actor, key, now()),
      api: (key) => ({ method: "GET", path: apiUrl(API_ROUTES.recordDetail, { key }) }),
    },
    {
      name: "resolve (compare-and-set + audit)",
      targets: { sqlP95Ms: null, apiP95Ms: 150 },
      inputs: stuckKeys,
      fresh: true,
      console: (db, key) =>
        resolveRecord(db, config, actor, key, {
          action: "complete",
          reason: "bench: processor says taken",
          expectedUpdatedAt: null,
        }),
      api: (key) => ({
        method: "POST",
        path: apiUrl(API_ROUTES.resolveRecord, { key }),
        body: { action: "complete", reason: "bench: processor says taken", expectedUpdatedAt: null },
      }),
    },
    {
      // The engineers' duplicates page: the figures per tool, the newest pairs, the arguments mismatches.
      name: "duplicates, 24 h",
      targets: { sqlP95Ms: null, apiP95Ms: null },
      inputs: [""],
      console: (db) =>
        readDuplicates(
          db,
          config,
          actor,
          { window: "24h", tool: null, tenant: null, limit: DEFAULT_DUPLICATES_LIMIT, cursor: null },
          now(),
        ),
      api: () => ({ method: "GET", path: apiUrl(API_ROUTES.duplicates, {}, { window: "24h" }) }),
    },
    {
      // Where repeats come from, by tool, host and tenant. No route serves them alone: over HTTP
      // they are part of the metrics (the "metrics, 48 h" case is that request).
      name: "repeat delays, 48 h",
      targets: { sqlP95Ms: null, apiP95Ms: null },
      inputs: [""],
      console: (db) => {
        const until = now();
        return repeatDelayFigures(db, actorTenantScope(actor), {
          since: new Date(until.getTime() - HISTORY_HOURS * 3_600_000),
          until,
        });
      },
      api: () => ({ method: "GET", path: apiUrl(API_ROUTES.metrics, {}, { window: "48h" }) }),
    },
    {
      name: "tools audit, 24 h",
      targets: { sqlP95Ms: null, apiP95Ms: null },
      inputs: [""],
      prepare: liveTraffic,
      console: (db) => buildToolsAudit(db, config, actor, "24h", now()),
      api: () => ({ method: "GET", path: apiUrl(API_ROUTES.toolsAudit, {}, { window: "24h" }) }),
    },
  ];
}

function decodeOrThrow(token: string) {
  const cursor = decodeCursor(token);
  if (!cursor) throw new Error(`bench: not a cursor: ${token}`);
  return cursor;
}
