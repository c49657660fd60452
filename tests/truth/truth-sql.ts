import { readFileSync } from "node:fs";
import pg from "pg";

/**
 * The truth, counted in plain SQL straight from the tables — written here, independently of the
 * console's query code (no lib/records, lib/metrics or lib/annotations function is called), so a
 * wrong rule there cannot make the truth agree with it.
 */

export const UNRECORDED = "(unrecorded)";

/** Stuck thresholds from the console's idem.config.json, parsed here. */
export type Thresholds = {
  byTool: Record<string, number>;
  defaultMs: number;
  configuredTools: string[];
  /** Each tool's key window in seconds where configured (else 900), and the tools keyed by a business key. */
  windowsS: Record<string, number>;
  businessKeyTools: string[];
};

export function readThresholds(configFile: string): Thresholds {
  const config = JSON.parse(readFileSync(configFile, "utf8")) as {
    tools?: Record<string, { stuckAfter?: string; window?: string; businessKey?: boolean }>;
    defaultStuckAfter?: string;
  };
  const byTool: Record<string, number> = {};
  const windowsS: Record<string, number> = {};
  const businessKeyTools: string[] = [];
  for (const [tool, entry] of Object.entries(config.tools ?? {})) {
    if (entry.stuckAfter) byTool[tool] = durationMs(entry.stuckAfter);
    if (entry.window) windowsS[tool] = durationMs(entry.window) / 1000;
    if (entry.businessKey) businessKeyTools.push(tool);
  }
  return {
    byTool,
    windowsS,
    businessKeyTools,
    defaultMs: config.defaultStuckAfter ? durationMs(config.defaultStuckAfter) : 5 * 60_000,
    configuredTools: Object.keys(config.tools ?? {}),
  };
}

function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new Error(`truth test: cannot read the duration ${JSON.stringify(text)}`);
  return (
    Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms" | "s" | "m" | "h" | "d"]
  );
}

/** Rows of the records list: the filter's conditions (null / false: not filtered). */
export type RowFilter = {
  tenants?: string[] | null;
  tenant?: string | null;
  tool?: string | null;
  status?: string | null;
  stuck?: boolean;
};

export class TruthDb {
  readonly pool: pg.Pool;
  constructor(
    url: string,
    readonly thresholds: Thresholds,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 3 });
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  async query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(sql, params)).rows;
  }

  /** `status = 'in_progress'` and older than its tool's stuckAfter at `now` (param $n). */
  stuckSql(nowParam: string, thresholdsParam: string): string {
    return `(status = 'in_progress' AND created_at < ${nowParam}::timestamptz - COALESCE((${thresholdsParam}::jsonb ->> tool)::float8, ${this.thresholds.defaultMs}) * interval '1 millisecond')`;
  }

  /** WHERE for a records filter, with its parameters. */
  where(filter: RowFilter, now: Date): { sql: string; params: unknown[] } {
    const parts: string[] = [];
    const params: unknown[] = [];
    const p = (value: unknown) => `$${params.push(value)}`;
    if (filter.tenants && filter.tenants.length > 0) parts.push(`tenant = ANY(${p(filter.tenants)}::text[])`);
    if (filter.tenant) parts.push(`tenant = ${p(filter.tenant)}`);
    if (filter.tool) parts.push(filter.tool === UNRECORDED ? "tool IS NULL" : `tool = ${p(filter.tool)}`);
    if (filter.status) parts.push(`status = ${p(filter.status)}`);
    if (filter.stuck) parts.push(this.stuckSql(p(now.toISOString()), p(JSON.stringify(this.thresholds.byTool))));
    return { sql: parts.length > 0 ? `WHERE ${parts.join(" AND ")}` : "", params };
  }

  /** count(*) per value of one column over the filter's rows (null: a NULL tool). */
  async countBy(
    column: "status" | "tool" | "tenant",
    filter: RowFilter,
    now: Date,
  ): Promise<Map<string | null, number>> {
    const { sql, params } = this.where(filter, now);
    const rows = await this.query<{ value: string | null; n: string }>(
      `SELECT ${column} AS value, count(*) AS n FROM idempotency ${sql} GROUP BY 1`,
      params,
    );
    return new Map(rows.map((r) => [r.value, Number(r.n)]));
  }

  async count(filter: RowFilter, now: Date): Promise<number> {
    const { sql, params } = this.where(filter, now);
    const [row] = await this.query<{ n: string }>(`SELECT count(*) AS n FROM idempotency ${sql}`, params);
    return Number(row?.n ?? 0);
  }

  /** Tools the console knows of: configured, or in a server's newest successful listing; with the declared idempotentHint. */
  async knownTools(): Promise<Map<string, { idempotentHint: boolean | null }>> {
    const listed = await this.query<{ name: string; hint: boolean | null }>(`
      SELECT DISTINCT t->>'name' AS name, (t->'annotations'->>'idempotentHint')::boolean AS hint
      FROM (SELECT DISTINCT ON (server) tools FROM tool_snapshot WHERE error IS NULL AND tools IS NOT NULL ORDER BY server, taken_at DESC, id DESC) latest,
           jsonb_array_elements(latest.tools) AS t`);
    const known = new Map<string, { idempotentHint: boolean | null }>(
      this.thresholds.configuredTools.map((t) => [t, { idempotentHint: null }]),
    );
    for (const l of listed) known.set(l.name, { idempotentHint: l.hint });
    return known;
  }
}
