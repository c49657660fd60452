import "server-only";
import type { Actor } from "@/lib/auth/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { tenantList } from "@/lib/records/tenant-scope";
import { stuckAfterMs } from "@/lib/records/stuck-threshold";
import { NO_EVIDENCE, type ToolEvidence } from "./annotation-types";

/**
 * The table's evidence per tool name over [since, now], limited to the actor's tenants.
 * Five grouped queries, whatever the number of tools: rows in the window (tool, created_at index),
 * events in the window (at index), stuck claims (the partial not-completed index), rows still
 * in_progress after an outcome_unknown event, and each tool's newest row (one index probe per tool).
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

  const rows = await db.$queryRaw<{ tool: string; records: number; completed: number; in_progress: number }[]>`
    SELECT tool, count(*)::int AS records,
           count(*) FILTER (WHERE status = 'completed')::int AS completed,
           count(*) FILTER (WHERE status = 'in_progress')::int AS in_progress
      FROM idempotency
     WHERE tool IS NOT NULL AND created_at >= ${since} AND created_at <= ${now}
       AND (${tenants}::text[] IS NULL OR tenant = ANY(${tenants}::text[]))
     GROUP BY tool`;
  for (const r of rows) Object.assign(of(r.tool), { records: r.records, completed: r.completed, inProgress: r.in_progress });

  const events = await db.$queryRaw<{ tool: string; kind: string; count: number }[]>`
    SELECT tool, kind, count(*)::int AS count
      FROM idempotency_event
     WHERE tool IS NOT NULL AND at >= ${since} AND at <= ${now}
       AND (${tenants}::text[] IS NULL OR tenant = ANY(${tenants}::text[]))
     GROUP BY tool, kind`;
  for (const e of events) {
    if (e.kind === "replay_served") of(e.tool).replays = e.count;
    else if (e.kind === "in_flight_rejected") of(e.tool).rejections = e.count;
    else if (e.kind === "outcome_unknown") of(e.tool).outcomeUnknown = e.count;
  }

  const unresolved = await db.$queryRaw<{ tool: string; count: number }[]>`
    SELECT e.tool, count(DISTINCT e.key)::int AS count
      FROM idempotency_event e JOIN idempotency i ON i.key = e.key
     WHERE e.kind = 'outcome_unknown' AND e.tool IS NOT NULL AND e.at >= ${since} AND e.at <= ${now}
       AND i.status = 'in_progress'
       AND (${tenants}::text[] IS NULL OR e.tenant = ANY(${tenants}::text[]))
     GROUP BY e.tool`;
  for (const u of unresolved) of(u.tool).unresolvedOutcomeUnknown = u.count;

  // Each tool's own stuckAfter; tools the config does not name use the default.
  const configured = Object.keys(config.tools);
  const thresholds = configured.map((tool) => stuckAfterMs(config, tool));
  const stuck = await db.$queryRaw<{ tool: string; count: number }[]>`
    SELECT i.tool, count(*)::int AS count
      FROM idempotency i
      LEFT JOIN unnest(${configured}::text[], ${thresholds}::float8[]) AS t(name, ms) ON t.name = i.tool
     WHERE i.status = 'in_progress' AND i.tool IS NOT NULL
       AND i.created_at < ${now}::timestamptz - make_interval(secs => coalesce(t.ms, ${config.defaultStuckAfter}::float8) / 1000)
       AND (${tenants}::text[] IS NULL OR i.tenant = ANY(${tenants}::text[]))
     GROUP BY i.tool`;
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
