import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { stuckAfterMs } from "@/lib/records/stuck-threshold";
import { auditScope, rowScope, type SourceScope } from "./source-counts";

/**
 * Claims stuck at the end of each step (in_progress for longer than the tool's stuckAfter at that
 * instant), counted at request time from what is cheap to find: claims still in_progress now (the
 * partial status index) and claims the console resolved since (their audit row keeps the claim's
 * time; the resolutions index). A claim its own writer completed after it had become stuck is not
 * among them: finding those means reading every completion of the window (the table's whole
 * volume), so the figure is a lower bound, labelled so; it is exact when writers complete within
 * their threshold. Nor does the hourly roll-up carry it: a claim's stuck time spans hours.
 * Cost: steps × open claims comparisons, 18 ms for the demo's 567 over 48 steps; a backlog of
 * tens of thousands of open claims takes a few hundred ms (a cumulative count per step would not).
 */
export async function stuckSeries(db: Db, config: IdemConfig, scope: SourceScope, stepEnds: Date[]): Promise<number[]> {
  if (stepEnds.length === 0) return [];
  const first = stepEnds[0]!;
  const last = stepEnds[stepEnds.length - 1]!;
  const tools = Object.keys(config.tools);
  const thresholds = tools.map((tool) => stuckAfterMs(config, tool));
  const rows = await db.$queryRaw<{ i: number; stuck: bigint }[]>`
    WITH ends AS (
      SELECT t, i::int4 AS i FROM unnest(${stepEnds}::timestamptz[]) WITH ORDINALITY AS e(t, i)
    ), threshold AS (
      SELECT * FROM unnest(${tools}::text[], ${thresholds}::int8[]) AS th(tool, ms)
    ), open_claims AS (
      SELECT COALESCE(tool, '') AS tool, created_at, NULL::timestamptz AS resolved_at FROM idempotency
       WHERE status = 'in_progress' AND created_at < ${last}::timestamptz ${rowScope(scope)}
      UNION ALL
      SELECT COALESCE(before->>'tool', ''), (before->>'createdAt')::timestamptz, at FROM audit_log
       WHERE action IN ('record.complete', 'record.release', 'record.force_release') AND at > ${first}::timestamptz
         AND before->>'status' = 'in_progress' ${auditScope(scope)}
    ), spans AS (
      -- When each claim became stuck (its tool's threshold after the claim) and when it stopped; counted per span.
      SELECT o.created_at + COALESCE(th.ms, ${config.defaultStuckAfter}) * interval '1 millisecond' AS stuck_from,
             o.resolved_at, count(*) AS n
        FROM open_claims o LEFT JOIN threshold th ON th.tool = o.tool
       GROUP BY 1, 2
    )
    SELECT e.i, COALESCE(sum(s.n), 0)::int8 AS stuck
      FROM ends e
      LEFT JOIN spans s ON s.stuck_from < e.t AND (s.resolved_at IS NULL OR s.resolved_at > e.t)
     GROUP BY e.i`;
  const counts = new Array<number>(stepEnds.length).fill(0);
  for (const r of rows) counts[Number(r.i) - 1] = Number(r.stuck);
  return counts;
}
