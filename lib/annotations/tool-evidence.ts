import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { actorTenantScope, type TenantScope } from "@/lib/tenancy/tenant-scope";
import { stuckCondition } from "@/lib/records/list-records";
import { Prisma } from "@/generated/prisma/client";
import { HOUR_MS } from "@/lib/metrics/metrics-window";
import { rollUpBeforeRead } from "@/lib/metrics/roll-up-settled";
import { NO_FIGURES, addFigures, type SourceFigures } from "@/lib/metrics/source-counts";
import { windowFigures } from "@/lib/metrics/window-figures";
import { NO_EVIDENCE, type ToolEvidence } from "@/lib/annotations/tool-audit-types";
import { duplicateFigures } from "@/lib/duplicates/duplicate-figures";
import { repeatDelayFigures } from "@/lib/repeats/repeat-figures";
import { atOneScanSnapshot } from "@/lib/scan/scan-snapshot";

/**
 * The table's evidence per tool name over [since, now), limited to the actor's tenants; every
 * query below uses the same `since` (the audit's hour-aligned start, audit-window.ts).
 * Claims, completions and events of the window are counted by the metrics rules (a completion at
 * its completion time): closed hours from the metrics rollup, minute slices and the last minute or
 * two live (metrics/window-figures.ts) — an aligned `since` leaves no partial hour for the base
 * tables; the rest are grouped
 * queries on small index ranges, whatever the number of tools: claims of the window still in
 * flight and stuck claims (the partial not-completed index), rows still in_progress after an
 * outcome_unknown event, and each tool's newest row (one index probe per tool).
 * Rows whose writer did not record the tool cannot be attributed to a tool and are left out.
 * `scannedThrough`: the duplicate scan's watermark its figures (duplicates, repeats) count through.
 */
export async function loadToolEvidence(
  db: Db,
  actor: Actor,
  config: IdemConfig,
  options: {
    since: Date;
    now: Date;
    tools: string[];
    /** Where the metrics roll-up writes when `db` is the read replica: the primary. Default `db`. */
    rollUpOn?: Db;
  },
): Promise<{ byTool: Map<string, ToolEvidence>; scannedThrough: string | null }> {
  const scope = actorTenantScope(actor);
  const { since, now } = options;
  const evidence = new Map<string, ToolEvidence>();
  const of = (tool: string) => {
    let entry = evidence.get(tool);
    if (!entry) evidence.set(tool, (entry = { ...NO_EVIDENCE }));
    return entry;
  };

  // Rows and events in the window: closed hours from the metrics rollup, then minute slices, the last minute or so live —
  // never a GROUP BY over a day of the base table (1.2 s at 1 M rows, see docs/bench.md).
  for (const [tool, counts] of await windowCounts(db, options.rollUpOn ?? db, scope, since, now)) {
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
     WHERE status = 'in_progress' AND tool IS NOT NULL AND created_at >= ${since} AND created_at < ${now}
       ${scope.and()}
     GROUP BY tool`;
  for (const o of open) of(o.tool).inProgress = o.count;

  // Rows still in flight with an outcome_unknown event in the window: the window's outcome_unknown
  // events (their own partial index, read index-only) joined to the open claims (the covering partial
  // index) — not every open claim probing its events (157 ms at 30,000 open claims, docs/bench.md).
  for (const [tool, count] of await unresolvedOutcomes(db, scope, since, now, [
    ...new Set([...options.tools, ...evidence.keys()]),
  ])) {
    of(tool).unresolvedOutcomeUnknown = count;
  }

  // Each tool's own stuckAfter, the default for the others: the stuck list's own condition.
  const stuck = await db.$queryRaw<{ tool: string; count: number }[]>`
    SELECT tool, count(*)::int AS count
      FROM idempotency
     WHERE ${stuckCondition(config, now)} AND tool IS NOT NULL
       ${scope.and()}
     GROUP BY tool`;
  for (const s of stuck) of(s.tool).stuck = s.count;

  // The duplicate scan's roll-ups: a few rows per hour and tool, never the base table; in one snapshot
  // with the scan's watermark, which the audit shows as what they count through.
  const { duplicates, repeats } = await atOneScanSnapshot(db, async (scan) => ({
    duplicates: await duplicateFigures(scan, scope, { since, until: now }),
    repeats: await repeatDelayFigures(scan, scope, { since, until: now }),
  }));
  for (const d of duplicates.byTool) {
    if (d.tool === "") continue;
    Object.assign(of(d.tool), { duplicatesThrough: d.duplicates, argumentsMismatches: d.argumentsMismatches });
  }
  for (const r of repeats.byTool) {
    if (r.tool === "" || r.repeats === 0) continue;
    of(r.tool).repeatDelays = {
      repeats: r.repeats,
      bands: r.bands,
      median: r.median,
      byClient: r.byClient.map((c) => ({ client: c.client, repeats: c.repeats, median: c.median })),
    };
  }

  const names = [...new Set([...options.tools, ...evidence.keys()])];
  const lastSeen = await db.$queryRaw<{ tool: string; last_seen: Date | null }[]>`
    SELECT t.name AS tool,
           (SELECT max(created_at) FROM idempotency i
             WHERE i.tool = t.name AND i.created_at < ${now} ${scope.and(Prisma.sql`i.tenant`)}) AS last_seen
      FROM unnest(${names}::text[]) AS t(name)`;
  for (const l of lastSeen) {
    if (l.last_seen) of(l.tool).lastSeen = l.last_seen.toISOString();
  }
  return { byTool: evidence, scannedThrough: duplicates.scannedThrough };
}

/** Per tool (unrecorded tools left out): the window's figures from rollups, slices and the last minutes live. */
async function windowCounts(
  db: Db,
  rollUpOn: Db,
  scope: TenantScope,
  since: Date,
  now: Date,
): Promise<Map<string, SourceFigures>> {
  await rollUpBeforeRead(rollUpOn, now);
  const { counts, rolled } = await windowFigures(
    db,
    { from: since, to: now, stepMs: HOUR_MS },
    { tenants: scope.tenants, tenant: null, tool: null },
    { latency: false },
  );
  const totals = new Map<string, SourceFigures>();
  for (const row of [...counts, ...rolled.byTenant]) {
    if (row.tool === "") continue;
    let t = totals.get(row.tool);
    if (!t) totals.set(row.tool, (t = { ...NO_FIGURES }));
    addFigures(t, row);
  }
  return totals;
}

/**
 * Claims still in_progress with an outcome_unknown event in [since, now), per tool. Counted per
 * known tool with FILTER in one aggregate: a GROUP BY sorted every match (9,600 at 10 M rows);
 * a claim of a tool not in the list (older than the window, of a server not listed) sends the
 * rare case to the GROUP BY.
 */
async function unresolvedOutcomes(
  db: Db,
  scope: TenantScope,
  since: Date,
  now: Date,
  tools: string[],
): Promise<Map<string, number>> {
  const matches = Prisma.sql`
    FROM idempotency i
   WHERE i.key IN (SELECT e.key FROM idempotency_event e WHERE e.kind = 'outcome_unknown' AND e.at >= ${since} AND e.at < ${now})
     AND i.status = 'in_progress' AND i.tool IS NOT NULL
     ${scope.and(Prisma.sql`i.tenant`)}`;
  const perTool = tools.map((tool) => Prisma.sql`count(*) FILTER (WHERE i.tool = ${tool})::int`);
  const [row] = await db.$queryRaw<{ counts: number[]; others: number }[]>`
    SELECT ARRAY[${perTool.length > 0 ? Prisma.join(perTool) : Prisma.sql`0`}]::int[] AS counts,
           count(*) FILTER (WHERE NOT (i.tool = ANY(${tools}::text[])))::int AS others
    ${matches}`;
  if (row && row.others > 0) {
    const grouped = await db.$queryRaw<
      { tool: string; count: number }[]
    >`SELECT i.tool, count(*)::int AS count ${matches} GROUP BY i.tool`;
    return new Map(grouped.map((g) => [g.tool, g.count]));
  }
  return new Map(tools.map((tool, i) => [tool, row?.counts[i] ?? 0] as const).filter(([, count]) => count > 0));
}
