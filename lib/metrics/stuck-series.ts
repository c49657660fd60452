import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { toolsByOwnThreshold } from "@/lib/records/stuck-threshold";
import { auditScope, rowScope, type SourceScope } from "./source-counts";

/** Claims stuck at the request's instant, per tenant and tool ('' = the writer recorded no tool). */
export type StuckNowRow = { tenant: string; tool: string; stuck: number };

/**
 * Claims stuck at the end of each step (in_progress for longer than the tool's stuckAfter at that
 * instant), counted at request time from what is cheap to find: claims still in_progress now (the
 * partial status index) and claims the console resolved since (their audit row keeps the claim's
 * time; the resolutions index). A claim its own writer completed after it had become stuck is not
 * among them: finding those means reading every completion of the window (the table's whole
 * volume), so the figure is a lower bound, labelled so; it is exact when writers complete within
 * their threshold. Nor does the hourly roll-up carry it: a claim's stuck time spans hours.
 *
 * The same pass over the open claims also counts, per tenant and tool, those stuck at the last step
 * end — the request's instant, so `now` is exactly the "stuck now" figure (lib/records/list-records.ts
 * stuckCondition, the stuck list's rule). One pass instead of two, and no arithmetic per claim: a claim
 * is stuck at a step end when it was made before that end less its tool's threshold, so each distinct
 * threshold gets its own copy of the step ends moved back by it, and the claim's time is looked up in
 * its tool's copy. At 30,000 open claims that took the two statements' 19 ms to 10 (docs/bench.md, "Issue
 * #31, sixth pass"). The claims are counted per tenant, tool and step first, in one hash table, so the two
 * groupings add up those groups instead of hashing every claim twice (13.6 → 11.2 ms, "seventh pass").
 */
export async function stuckFigures(
  db: Db,
  config: IdemConfig,
  scope: SourceScope,
  stepEnds: Date[],
): Promise<{ atStepEnds: number[]; now: StuckNowRow[] }> {
  if (stepEnds.length === 0) throw new Error("stuckFigures: a window has at least one step");
  const first = stepEnds[0]!;
  const last = stepEnds[stepEnds.length - 1]!;
  const byThreshold = toolsByOwnThreshold(config);
  const endsLess = (ms: number) => stepEnds.map((end) => new Date(end.getTime() - ms));
  const byTool = (tool: Prisma.Sql, pick: (ms: number) => Prisma.Sql) =>
    byThreshold.size === 0
      ? pick(config.defaultStuckAfter)
      : Prisma.sql`CASE ${Prisma.join(
          [...byThreshold].map(([ms, tools]) => Prisma.sql`WHEN ${tool} = ANY(${tools}::text[]) THEN ${pick(ms)}`),
          " ",
        )} ELSE ${pick(config.defaultStuckAfter)} END`;
  // Each claim counts at the steps that end after it became stuck and before it was resolved: +1 from
  // the step after its stuck time, −1 from the step at or after its resolution (width_bucket: how many
  // step ends lie at or before the instant). The deltas are grouped in SQL and added up in order below.
  // A claim is stuck at the last end when fewer than all the ends lie at or before its stuck time.
  const stepOfClaim = (tool: Prisma.Sql, createdAt: Prisma.Sql) =>
    byTool(tool, (ms) => Prisma.sql`width_bucket(${createdAt}, ${endsLess(ms)}::timestamptz[])`);
  const thresholdMs = (tool: Prisma.Sql) => byTool(tool, (ms) => Prisma.sql`${ms}::int8`);
  const rows = await db.$queryRaw<
    {
      part: "now" | "open" | "resolved";
      tenant: string | null;
      tool: string | null;
      k_from: number | null;
      k_to: number | null;
      claims: bigint;
    }[]
  >`
    WITH open_claims AS (
      SELECT tenant, COALESCE(tool, '') AS tool, ${stepOfClaim(Prisma.sql`tool`, Prisma.sql`created_at`)} AS k_from, count(*) AS claims
        FROM idempotency
       WHERE status = 'in_progress' AND created_at < ${last}::timestamptz ${rowScope(scope)}
       GROUP BY 1, 2, 3
    ), resolved_rows AS (
      SELECT COALESCE(before->>'tool', '') AS tool, (before->>'createdAt')::timestamptz AS created_at, at AS resolved_at
        FROM audit_log
       WHERE action IN ('record.complete', 'record.release', 'record.force_release') AND at > ${first}::timestamptz
         AND before->>'status' = 'in_progress' ${auditScope(scope)}
    ), resolved_claims AS (
      -- A claim resolved before it became stuck (its tool's threshold after the claim) is never counted.
      SELECT ${stepOfClaim(Prisma.sql`tool`, Prisma.sql`created_at`)} AS k_from, resolved_at FROM resolved_rows
       WHERE resolved_at > created_at + ${thresholdMs(Prisma.sql`tool`)} * interval '1 millisecond'
    )
    SELECT CASE WHEN GROUPING(k_from) = 1 THEN 'now' ELSE 'open' END AS part, tenant, tool, k_from, NULL::int AS k_to,
           CASE WHEN GROUPING(k_from) = 1 THEN sum(claims) FILTER (WHERE k_from < ${stepEnds.length}) ELSE sum(claims) END::int8 AS claims
      FROM open_claims GROUP BY GROUPING SETS ((tenant, tool), (k_from))
    UNION ALL
    SELECT 'resolved', NULL, NULL, k_from, width_bucket(resolved_at - interval '1 microsecond', ${stepEnds}::timestamptz[]), count(*)::int8
      FROM resolved_claims GROUP BY 4, 5`;
  // k = the number of step ends at or before the instant: the delta applies from step k + 1 on.
  const deltas = new Array<number>(stepEnds.length + 1).fill(0);
  const now: StuckNowRow[] = [];
  for (const r of rows) {
    if (r.part === "now") {
      if (r.claims > 0n) now.push({ tenant: r.tenant!, tool: r.tool!, stuck: Number(r.claims) });
      continue;
    }
    deltas[Number(r.k_from)]! += Number(r.claims);
    if (r.k_to !== null) deltas[Number(r.k_to)]! -= Number(r.claims);
  }
  const atStepEnds = new Array<number>(stepEnds.length).fill(0);
  let running = 0;
  for (let i = 0; i < stepEnds.length; i += 1) {
    running += deltas[i]!;
    atStepEnds[i] = running;
  }
  return { atStepEnds, now };
}
