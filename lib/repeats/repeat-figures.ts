import "server-only";
import { Prisma } from "@/generated/prisma/client";
import { REPEAT_DELAY_BANDS, type RepeatDelayBand } from "@/lib/repeats/repeat-delay-band";
import { scanFilters, scanWatermark, type ScanRange } from "@/lib/scan/scan-watermark";
import type { ScanReader } from "@/lib/scan/scan-snapshot";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";
import { addBuckets, bucketSumsSql, emptyBuckets, medianRange } from "./repeat-delay-buckets";

export type BandCounts = Record<RepeatDelayBand, number>;

/** Repeats and their delays: exact counts per band and per histogram bucket, the median as the bucket range holding it. */
export type RepeatDistribution = {
  repeats: number;
  bands: BandCounts;
  buckets: number[];
  meanMs: number | null;
  median: { fromS: number; toS: number | null } | null;
};

export type ToolRepeats = RepeatDistribution & {
  tool: string;
  /** Per calling host, most repeats first; client null = the writer recorded no host. */
  byClient: (RepeatDistribution & { client: string | null })[];
  /** The tenants with the most repeats (at most TOP_TENANTS), with their band counts. */
  topTenants: { tenant: string; repeats: number; bands: BandCounts }[];
};

export type RepeatFigures = {
  /** Events before this instant are counted; younger ones are not scanned yet. Null: never scanned. */
  scannedThrough: string | null;
  byTool: ToolRepeats[];
  /** Every tool's repeats per host: which host sends the most, and how fast. */
  byClient: (RepeatDistribution & { client: string | null })[];
};

export const TOP_TENANTS = 5;

function emptyBands(): BandCounts {
  return Object.fromEntries(REPEAT_DELAY_BANDS.map((b) => [b.band, 0])) as BandCounts;
}

function emptyDistribution(): RepeatDistribution & { delaySumMs: number } {
  return { repeats: 0, bands: emptyBands(), buckets: emptyBuckets(), meanMs: null, median: null, delaySumMs: 0 };
}

function finish<T extends RepeatDistribution & { delaySumMs: number }>(d: T): Omit<T, "delaySumMs"> {
  const { delaySumMs, ...rest } = d;
  return {
    ...rest,
    meanMs: d.repeats === 0 ? null : Math.round(delaySumMs / d.repeats),
    median: medianRange(d.buckets),
  };
}

/**
 * The repeats of [since, until) from repeat_delay_hourly (the duplicate scan's roll-up): by tool,
 * by tool and host, by host, and each tool's busiest tenants. Whole event hours: `since` is
 * floored to its hour by the caller's window (the hour holding it counts whole).
 */
export async function repeatDelayFigures(db: ScanReader, scope: TenantScope, range: ScanRange): Promise<RepeatFigures> {
  const filters = [
    ...scanFilters(scope, range),
    Prisma.sql`hour >= date_trunc('hour', ${range.since}::timestamptz, 'UTC')`,
    Prisma.sql`hour < ${range.until}`,
  ];
  const where = Prisma.join(filters, " AND ");
  const [byHost, byTenant, scannedThrough] = await Promise.all([
    db.$queryRaw<{ tool: string; client: string; band: string; repeats: number; delay: number; buckets: number[] }[]>`
      SELECT tool, client, band, sum(repeats)::float8 AS repeats, sum(delay_ms_sum) AS delay,
             ${Prisma.raw(bucketSumsSql("buckets"))} AS buckets
      FROM repeat_delay_hourly WHERE ${where} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    db.$queryRaw<{ tool: string; tenant: string; band: string; repeats: number }[]>`
      WITH per_tenant AS (
        SELECT tool, tenant, band, sum(repeats)::float8 AS repeats FROM repeat_delay_hourly WHERE ${where} GROUP BY 1, 2, 3
      ), ranked AS (
        SELECT tool, tenant, dense_rank() OVER (PARTITION BY tool ORDER BY sum(repeats) DESC, tenant) AS rank
        FROM per_tenant GROUP BY tool, tenant
      )
      SELECT p.tool, p.tenant, p.band, p.repeats FROM per_tenant p JOIN ranked r USING (tool, tenant)
      WHERE r.rank <= ${TOP_TENANTS} ORDER BY 1, 2, 3`,
    scanWatermark(db),
  ]);

  const tools = new Map<
    string,
    ReturnType<typeof emptyDistribution> & { clients: Map<string, ReturnType<typeof emptyDistribution>> }
  >();
  const hosts = new Map<string, ReturnType<typeof emptyDistribution>>();
  const add = (d: ReturnType<typeof emptyDistribution>, row: (typeof byHost)[number]) => {
    d.repeats += row.repeats;
    d.delaySumMs += row.delay;
    d.bands[row.band as RepeatDelayBand] += row.repeats;
    addBuckets(d.buckets, row.buckets);
  };
  for (const row of byHost) {
    let tool = tools.get(row.tool);
    if (!tool) tools.set(row.tool, (tool = { ...emptyDistribution(), clients: new Map() }));
    add(tool, row);
    let client = tool.clients.get(row.client);
    if (!client) tool.clients.set(row.client, (client = emptyDistribution()));
    add(client, row);
    let host = hosts.get(row.client);
    if (!host) hosts.set(row.client, (host = emptyDistribution()));
    add(host, row);
  }
  const tenants = new Map<string, Map<string, { tenant: string; repeats: number; bands: BandCounts }>>();
  for (const row of byTenant) {
    const ofTool = tenants.get(row.tool) ?? new Map();
    tenants.set(row.tool, ofTool);
    const entry = ofTool.get(row.tenant) ?? { tenant: row.tenant, repeats: 0, bands: emptyBands() };
    entry.repeats += row.repeats;
    entry.bands[row.band as RepeatDelayBand] += row.repeats;
    ofTool.set(row.tenant, entry);
  }
  const mostFirst = <T extends { repeats: number }>(a: T, b: T) => b.repeats - a.repeats;
  const clientsOf = (m: Map<string, ReturnType<typeof emptyDistribution>>) =>
    [...m].map(([client, d]) => ({ client: client === "" ? null : client, ...finish(d) })).sort(mostFirst);
  return {
    scannedThrough,
    byTool: [...tools].map(([tool, { clients, ...d }]) => ({
      tool,
      ...finish(d),
      byClient: clientsOf(clients),
      topTenants: [...(tenants.get(tool)?.values() ?? [])].sort(mostFirst),
    })),
    byClient: clientsOf(hosts),
  };
}
