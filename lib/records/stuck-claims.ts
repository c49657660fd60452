import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { formatDuration } from "@/lib/config/duration";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import {
  DEFAULT_STUCK_ORDER,
  EMPTY_FILTER,
  filterToParams,
  LIST_ORDERS,
  type ListOrder,
  parseRecordsQuery,
  pageLinks,
  type PageLinks,
  type RecordsFilter,
  type RecordsQuery,
  UNRECORDED_TOOL,
} from "@/lib/records/list-filters";
import type { ParseResult } from "@/lib/url-state/strict-params";
import { listRecords, recordsConditions, whereClause, type RecordListItem } from "@/lib/records/list-records";
import { readVisibleClaims } from "@/lib/records/visible-records";
import { stuckAfterMs } from "@/lib/records/stuck-threshold";
import { describeProcessor } from "@/lib/config/describe-processor";
import type { StuckFilterInput } from "@/lib/records/stuck-filter-input";
import { quoteInput } from "@/lib/text/quote-input";

/** What narrows the stuck page: a tenant and a tool (stuck is implied; status and times are not offered). */
export type StuckFilter = { tenant: string | null; tool: string | null };

/** The records parameters the stuck page reads. */
const STUCK_PARAMS = ["tenant", "tool", "cursor", "dir", "limit"] as const;

/** `order`: oldest first (the default, the claim most at risk first) or newest first. */
export type StuckQuery = StuckFilter & Pick<RecordsQuery, "cursor" | "dir" | "limit"> & { order: ListOrder };

/** One tool's stuck claims: how many, since when, and the threshold that made them stuck. */
export type StuckToolCount = {
  /** null: writers that do not record the tool. */
  tool: string | null;
  count: number;
  /** Age of this tool's oldest stuck claim, null when it has none. */
  oldestAgeMs: number | null;
  thresholdMs: number;
  threshold: string;
  /** Where the threshold comes from: the tool's own stuckAfter, or the default. */
  thresholdSource: "tool" | "default";
  /** How the console asks this tool's processor, or null: nobody to ask, only a forced release can clear it. */
  processor: string | null;
};

export type StuckClaims = {
  filter: StuckFilter;
  /** The page's order: oldest first unless the URL asks for newest. */
  order: ListOrder;
  /** One page of stuck claims in that order (the records list's keyset paging). */
  claims: RecordListItem[];
  page: { nextCursor: string | null; prevCursor: string | null; links: PageLinks };
  /** Per tool, for the tenant filter (never the tool filter: the other tools stay one click away). */
  byTool: StuckToolCount[];
  /** Stuck claims matching the whole filter (tenant and tool). */
  total: number;
  oldestAgeMs: number | null;
  defaultThreshold: string;
  generatedAt: string;
};

/**
 * The stuck page's URL, through THE records parser: the same tenant/tool/cursor/dir/limit rules
 * as the records list, plus `order` (oldest, the default, or newest). Anything else in the URL
 * (status, from, to, stuck, refresh) is not a filter here and is ignored rather than applied.
 */
export function parseStuckQuery(
  input: URLSearchParams | Record<string, string | string[] | undefined>,
): ParseResult<StuckQuery> {
  const entries =
    input instanceof URLSearchParams
      ? [...input]
      : Object.entries(input).flatMap(([k, v]) =>
          v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((one) => [k, one] as [string, string]),
        );
  const relevant = new URLSearchParams(entries.filter(([k]) => (STUCK_PARAMS as readonly string[]).includes(k)));
  const parsed = parseRecordsQuery(relevant, { unknownParams: "reject" });
  const orders = entries.filter(([k]) => k === "order").map(([, v]) => v);
  const order = orders.length === 0 ? DEFAULT_STUCK_ORDER : orders[0];
  const orderOk = orders.length <= 1 && (LIST_ORDERS as readonly string[]).includes(order ?? "");
  const orderProblem = {
    param: "order",
    message:
      orders.length > 1
        ? "order: given more than once"
        : `order: expected oldest or newest, got ${quoteInput(order ?? "")}`,
  };
  if (!parsed.ok) return orderOk ? parsed : { ok: false, problems: [...parsed.problems, orderProblem] };
  if (!orderOk) return { ok: false, problems: [orderProblem] };
  const { tenant, tool, cursor, dir, limit } = parsed.value;
  return { ok: true, value: { tenant, tool, cursor, dir, limit, order: order as ListOrder } };
}

export function stuckRecordsFilter(filter: StuckFilter): RecordsFilter {
  return { ...EMPTY_FILTER, tenant: filter.tenant, tool: filter.tool, stuck: true };
}

type ToolCountRow = { tool: string | null; count: bigint; oldest: Date };

/**
 * The stuck page's data, limited to the actor's tenants: a page of claims (keyset, like the
 * records list, served by the partial `status <> 'completed'` index), counts by tool with each
 * tool's threshold, and the oldest claim's age.
 */
export async function loadStuckClaims(
  db: Db,
  actor: Actor,
  query: StuckQuery,
  config: IdemConfig,
  now: Date,
): Promise<StuckClaims> {
  const filter = stuckRecordsFilter(query);
  const countConditions = recordsConditions(actor, { ...filter, tool: null }, config, now);
  const [page, toolRows] = await Promise.all([
    listRecords(
      db,
      actor,
      { ...filter, cursor: query.cursor, dir: query.dir, limit: query.limit },
      config,
      now,
      query.order,
    ),
    db.$queryRaw<ToolCountRow[]>`
      SELECT tool, count(*) AS count, min(created_at) AS oldest
      FROM idempotency ${whereClause(countConditions)}
      GROUP BY tool`,
  ]);

  const counted = new Map(toolRows.map((row) => [row.tool, row]));
  // Configured tools appear even with nothing stuck, so their thresholds are on the page.
  const tools = new Set<string | null>([...Object.keys(config.tools), ...counted.keys()]);
  const byTool = [...tools]
    .map((tool): StuckToolCount => {
      const row = counted.get(tool);
      const thresholdMs = stuckAfterMs(config, tool);
      return {
        tool,
        count: row ? Number(row.count) : 0,
        oldestAgeMs: row ? Math.max(0, now.getTime() - row.oldest.getTime()) : null,
        thresholdMs,
        threshold: formatDuration(thresholdMs),
        thresholdSource: tool !== null && config.tools[tool]?.stuckAfter !== undefined ? "tool" : "default",
        processor: describeProcessor(config, tool),
      };
    })
    .sort((a, b) => b.count - a.count || (a.tool ?? "~").localeCompare(b.tool ?? "~"));

  const matching = query.tool === null ? byTool : byTool.filter((t) => matchesToolFilter(t.tool, query.tool));
  const ages = matching.flatMap((t) => (t.oldestAgeMs === null ? [] : [t.oldestAgeMs]));
  const base = { ...filterToParams({ ...EMPTY_FILTER, tenant: query.tenant, tool: query.tool }), limit: query.limit };
  return {
    filter: { tenant: query.tenant, tool: query.tool },
    order: query.order,
    claims: page.records,
    page: {
      nextCursor: page.nextCursor,
      prevCursor: page.prevCursor,
      links: withOrder(pageLinks(base, page), query.order),
    },
    byTool,
    total: matching.reduce((sum, t) => sum + t.count, 0),
    oldestAgeMs: ages.length > 0 ? Math.max(...ages) : null,
    defaultThreshold: formatDuration(config.defaultStuckAfter),
    generatedAt: now.toISOString(),
  };
}

/** The page links keep a non-default order (the default stays out of the URL, as nuqs leaves it). */
function withOrder(links: PageLinks, order: ListOrder): PageLinks {
  const add = (qs: string) => {
    if (order === DEFAULT_STUCK_ORDER) return qs;
    const params = new URLSearchParams(qs);
    params.set("order", order);
    return `?${params.toString()}`;
  };
  return { first: add(links.first), next: links.next && add(links.next), prev: links.prev && add(links.prev) };
}

function matchesToolFilter(tool: string | null, filterTool: string | null): boolean {
  if (filterTool === null) return true;
  return filterTool === UNRECORDED_TOOL ? tool === null : tool === filterTool;
}

/** The stuck claim an operator is offered after resolving one: the oldest the actor can see. */
export type NextStuckClaim = { key: string; ref: string; tenant: string; tool: string | null; createdAt: string };

/**
 * The oldest stuck claim within the actor's tenants, and within the Stuck filter the caller works in
 * (`within`: a tenant, a tool; by default every one of theirs), or null: "no more stuck claims".
 * A tenant outside theirs finds none, as on the list. One row from the partial
 * `status <> 'completed'` index.
 */
export async function findOldestStuckClaim(
  db: Db,
  actor: Actor,
  config: IdemConfig,
  now: Date,
  within: StuckFilterInput = {},
): Promise<NextStuckClaim | null> {
  const filter = stuckRecordsFilter({ tenant: within.tenant ?? null, tool: within.tool ?? null });
  const conditions = recordsConditions(actor, filter, config, now);
  const [row] = await db.$queryRaw<{ key: string; tenant: string; tool: string | null; created_at: Date }[]>`
    SELECT key, tenant, tool, created_at FROM idempotency ${whereClause(conditions)}
    ORDER BY created_at ASC, key ASC LIMIT 1`;
  return row
    ? {
        key: row.key,
        ref: row.key.slice(0, 12),
        tenant: row.tenant,
        tool: row.tool,
        createdAt: row.created_at.toISOString(),
      }
    : null;
}

/** Each listed claim's exact version, for the compare-and-set of a resolve from the stuck list. */
export async function readClaimVersions(
  db: Db,
  actor: Actor,
  claims: readonly RecordListItem[],
): Promise<Record<string, string | null>> {
  const visible = await readVisibleClaims(
    db,
    actor,
    claims.map((c) => c.key),
  );
  return Object.fromEntries(claims.map((c) => [c.key, visible.get(c.key)?.version ?? null]));
}
