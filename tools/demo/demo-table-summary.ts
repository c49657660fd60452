import { type Queryable, EVENT_KINDS } from "idem-guard";

export type DemoTableSummary = {
  rowsByStatus: Record<string, number>;
  /** in_progress rows older than `stuckAfterMs` (stuck), and younger (still in flight). */
  inProgress: { stuck: number; recent: number };
  eventsByKind: Record<string, number>;
};

/** What the history left in the table and the events, for the given tenants. */
export async function summarizeDemoTables(
  db: Queryable,
  tenants: readonly string[],
  now: Date,
  stuckAfterMs = 5 * 60_000,
): Promise<DemoTableSummary> {
  const rows = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*)::text AS n FROM idempotency WHERE tenant = ANY($1) GROUP BY status ORDER BY status`,
    [tenants],
  );
  const stuck = await db.query<{ stuck: string; recent: string }>(
    `SELECT count(*) FILTER (WHERE created_at < $2)::text AS stuck, count(*) FILTER (WHERE created_at >= $2)::text AS recent
     FROM idempotency WHERE tenant = ANY($1) AND status = 'in_progress'`,
    [tenants, new Date(now.getTime() - stuckAfterMs)],
  );
  const events = await db.query<{ kind: string; n: string }>(
    `SELECT kind, count(*)::text AS n FROM idempotency_event WHERE tenant = ANY($1) GROUP BY kind`,
    [tenants],
  );
  const eventsByKind: Record<string, number> = Object.fromEntries(EVENT_KINDS.map((kind) => [kind, 0]));
  for (const row of events.rows) eventsByKind[row.kind] = Number(row.n);
  return {
    rowsByStatus: Object.fromEntries(rows.rows.map((r) => [r.status, Number(r.n)])),
    inProgress: { stuck: Number(stuck.rows[0]?.stuck ?? 0), recent: Number(stuck.rows[0]?.recent ?? 0) },
    eventsByKind,
  };
}
