import "server-only";
import type { Actor } from "@/lib/auth/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { tenantList } from "@/lib/records/tenant-scope";
import { stuckCondition } from "@/lib/records/list-records";
import { Prisma } from "@/generated/prisma/client";
import { HOUR_MS, floorTo } from "@/lib/metrics/metrics-window";
import { rollUpClosedHours } from "@/lib/metrics/rollup";
import { sourceCounts, type CountRow } from "@/lib/metrics/source-counts";
import { NO_EVIDENCE, type ToolEvidence } from "./annotation-types";

/**
 * The table's evidence per tool name over [since, now], limited to the actor's tenants.
 * Claims, completions and events of the window come from the metrics rollup for closed hours
 * (whole hours from the one holding `since`, counted by the metrics rules: a completion in the
 * hour it happened) and live from the base tables for the open hour; the rest are grouped
 * queries on small index ranges, whatever the number of tools: claims of the window still in
 * flight and stuck claims (the partial not-completed index), rows still in_progress after an
 * outcome_unknown event, and each tool's newest row (one index probe per tool).
 * Rows whose writer did not record the tool cannot be attributed to a tool and are left out.
 */
export async function loadToolEvidence(db: Db, actor: Actor, config: IdemConfig, options: { since: Date; now: Date; tools: string[] }): Promise<Map<string, ToolEvidence>> {
  const tenants = tenantList(actor);
  const { since, now } = options;
  const evidence = new Map<string, ToolEvidence>();
  const of = (tool: string) => {
    let entry = evidence.get(tool);
    if (!entry) evidence.set(tool, (entry = { ...NO_EVIDENCE }));
    return entry;
  };

  // Rows and events in the window: closed hours from the metrics rollup, the open hour(s) live —
  // never a GROUP BY over a day of the base table (1.2 s at 1 M rows, see docs/bench.md).
  for (const [tool, counts] of await windowCounts(db, tenants, since, now)) {
    Object.assign(of(tool), {
      records: counts.executions,
      completed: counts.completed,
      replays: counts.replaysServed,
      rejections: counts.inFlightRejected,
      outcomeUnknown: counts.outcomeUnknown,
    });
  }
  // Claims of the window still in flight: exact, from the small partial `status <> 'completed'` index.
  const open = await db.$queryRaw<{ tool: string; count: number }[]>`
    SELECT tool, count(*)::int AS count
      FROM idempotency
     WHERE status = 'in_progress' AND tool IS NOT NULL AND created_at >= ${since} AND created_at <= ${now}
       AND (${tenants}::text[] IS NULL OR tenant = ANY(${tenants}::text[]))
     GROUP BY tool`;
  for (const o of open) of(o.tool).inProgress = o.count;

  // Rows still in flight with an outcome_unknown event in the window: the in-flight rows (small
  // partial index) probed for such an event, counted by hash (a COUNT(DISTINCT) sorted every match).
  const unresolved = await db.$queryRaw<{ tool: string; count: number }[]>`
    SELECT i.tool, count(*)::int AS count
      FROM idempotency i
     WHERE i.status = 'in_progress' AND i.tool IS NOT NULL
       AND (${tenants}::text[] IS NULL OR i.tenant = ANY(${tenants}::text[]))
       AND EXISTS (SELECT 1 FROM idempotency_event e
                    WHERE e.key = i.key AND e.kind = 'outcome_unknown' AND e.at >= ${since} AND e.at <= ${now})
     GROUP BY i.tool`;
  for (const u of unresolved) of(u.tool).unresolvedOutcomeUnknown = u.count;

  // Each tool's own stuckAfter, the default for the others: the stuck list's own condition.
  const stuck = await db.$queryRaw<{ tool: string; count: number }[]>`
    SELECT tool, count(*)::int AS count
      FROM idempotency
     WHERE ${stuckCondition(config, now)} AND tool IS NOT NULL
       AND (${tenants}::text[] IS NULL OR tenant = ANY(${tenants}::text[]))
     GROUP BY tool`;
  for (const s of stuck) of(s.tool).stuck = s.count;

  const names = [...new Set([...options.tools, ...evidence.keys()])];
  const lastSeen = await db.$queryRaw<{ tool: string; last_seen: Date | null }[]>`
    SELECT t.name AS tool,
           (SELECT max(created_at) FROM idempotency i
             WHERE i.tool = t.name AND (${tenants}::text[] IS NULL OR i.tenant = ANY(${tenants}::text[]))) AS last_seen
      FROM unnest(${names}::text[]) AS t(name)`;
  for (const l of lastSeen) {
    if (l.last_seen) of(l.tool).lastSeen = l.last_seen.toISOString();
  }
  return evidence;
}

type WindowCounts = Pick<CountRow, "executions" | "completed" | "replaysServed" | "inFlightRejected" | "outcomeUnknown">;

/** Per tool (unrecorded tools left out): rolled-up hours summed, the hours not rolled up yet computed live. */
async function windowCounts(db: Db, tenants: string[] | null, since: Date, now: Date): Promise<Map<string, WindowCounts>> {
  await rollUpClosedHours(db, now);
  const from = floorTo(since, HOUR_MS);
  const tenantSql = tenants !== null ? Prisma.sql`AND tenant = ANY(${tenants}::text[])` : Prisma.empty;
  const rolledHours = await db.$queryRaw<{ hour: Date }[]>`
    SELECT hour FROM metrics_rollup_hour WHERE hour >= ${from}::timestamptz AND hour < ${now}::timestamptz`;
  const rolled = new Set(rolledHours.map((r) => r.hour.getTime()));
  const totals = new Map<string, WindowCounts>();
  const add = (tool: string, row: WindowCounts) => {
    const t = totals.get(tool) ?? { executions: 0, completed: 0, replaysServed: 0, inFlightRejected: 0, outcomeUnknown: 0 };
    t.executions += row.executions;
    t.completed += row.completed;
    t.replaysServed += row.replaysServed;
    t.inFlightRejected += row.inFlightRejected;
    t.outcomeUnknown += row.outcomeUnknown;
    totals.set(tool, t);
  };
  if (rolled.size > 0) {
    const rows = await db.$queryRaw<{ tool: string; executions: bigint; completed: bigint; replays_served: bigint; in_flight_rejected: bigint; outcome_unknown: bigint }[]>`
      SELECT tool, sum(executions)::int8 AS executions, sum(completed)::int8 AS completed, sum(replays_served)::int8 AS replays_served,
             sum(in_flight_rejected)::int8 AS in_flight_rejected, sum(outcome_unknown)::int8 AS outcome_unknown
        FROM metrics_hourly
       WHERE hour >= ${from}::timestamptz AND hour < ${now}::timestamptz AND tool <> ''
         AND hour IN (SELECT hour FROM metrics_rollup_hour WHERE hour >= ${from}::timestamptz AND hour < ${now}::timestamptz)
         ${tenantSql}
       GROUP BY tool`;
    for (const r of rows) {
      add(r.tool, {
        executions: Number(r.executions), completed: Number(r.completed), replaysServed: Number(r.replays_served),
        inFlightRejected: Number(r.in_flight_rejected), outcomeUnknown: Number(r.outcome_unknown),
      });
    }
  }
  let firstLive = from.getTime();
  while (rolled.has(firstLive) && firstLive < now.getTime()) firstLive += HOUR_MS;
  if (firstLive < now.getTime()) {
    const live = await sourceCounts(db, { from: new Date(firstLive), to: now, stepMs: HOUR_MS }, { tenants, tenant: null, tool: null });
    for (const row of live) if (row.tool !== "" && !rolled.has(row.step.getTime())) add(row.tool, row);
  }
  return totals;
}
