import "server-only";
import { Prisma } from "@/generated/prisma/client";
import { repeatDelayBandSql } from "@/lib/repeats/repeat-delay-band";
import { repeatDelayBucketsSql } from "./repeat-delay-buckets";

type Tx = Pick<Prisma.TransactionClient, "$executeRaw">;

/**
 * Counts the repeats writers recorded in [from, to) — replay_served and in_flight_rejected events,
 * by their `at` — into repeat_delay_hourly, each with its delay after the first call (the row's
 * created_at; a negative delay from writer clock skew counts as 0), and the arguments_mismatch
 * events into duplicate_scan_hourly. Runs in the duplicate scan's chunk transaction, under its
 * lock and watermark, so every event is counted once. A row released (or allowed to repeat) before the
 * scan is measured from its audit snapshot; an event whose row is gone without one (trimmed) is left out.
 */
export async function countRepeatsInto(
  tx: Tx,
  range: { from: Date; to: Date },
  windows: { windows: Record<string, number>; defaultWindowSeconds: number; businessKeyTools: string[] },
): Promise<void> {
  const delay = "delay_ms";
  await tx.$executeRaw`
    WITH repeats AS (
      SELECT date_trunc('hour', e.at, 'UTC') AS hour, e.tenant, COALESCE(e.tool, r.tool, released.tool, '') AS tool,
             COALESCE(e.client, '') AS client,
             GREATEST(extract(epoch FROM e.at - COALESCE(r.created_at, released.created_at)) * 1000, 0)::float8 AS delay_ms,
             -- A business key never stops deduplicating: no window end to be near.
             CASE WHEN COALESCE(e.tool, r.tool) = ANY(${windows.businessKeyTools}::text[]) THEN 'Infinity'::float8
                  ELSE COALESCE((${JSON.stringify(windows.windows)}::jsonb ->> COALESCE(e.tool, r.tool))::float8,
                                ${windows.defaultWindowSeconds}::float8) END AS window_s
      FROM idempotency_event e
      LEFT JOIN idempotency r ON r.key = e.key
      -- A claim an operator released (or allowed to repeat) before the scan: its first call's time from the audit snapshot.
      LEFT JOIN LATERAL (
        SELECT (a.before ->> 'createdAt')::timestamptz AS created_at, a.before ->> 'tool' AS tool FROM audit_log a
        WHERE r.key IS NULL AND a.key = e.key AND a.action IN ('record.release', 'record.force_release', 'record.allow_repeat')
        ORDER BY a.at DESC LIMIT 1
      ) released ON true
      WHERE e.at >= ${range.from} AND e.at < ${range.to} AND e.kind IN ('replay_served', 'in_flight_rejected')
        AND COALESCE(r.created_at, released.created_at) IS NOT NULL
    ), banded AS (
      SELECT *, ${Prisma.raw(repeatDelayBandSql(delay, "window_s"))} AS band FROM repeats
    )
    INSERT INTO repeat_delay_hourly AS t (hour, tenant, tool, client, band, repeats, delay_ms_sum, buckets)
    SELECT hour, tenant, tool, client, band, count(*), sum(delay_ms), ${Prisma.raw(repeatDelayBucketsSql(delay))}
    FROM banded GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (hour, tenant, tool, client, band) DO UPDATE
      SET repeats = t.repeats + EXCLUDED.repeats, delay_ms_sum = t.delay_ms_sum + EXCLUDED.delay_ms_sum,
          buckets = ARRAY(SELECT a + b FROM unnest(t.buckets, EXCLUDED.buckets) WITH ORDINALITY AS u(a, b, i) ORDER BY i)`;
  await tx.$executeRaw`
    INSERT INTO duplicate_scan_hourly AS t (hour, tenant, tool, arguments_mismatches)
    SELECT date_trunc('hour', at, 'UTC'), tenant, COALESCE(tool, ''), count(*)
    FROM idempotency_event
    WHERE kind = 'arguments_mismatch' AND at >= ${range.from} AND at < ${range.to}
    GROUP BY 1, 2, 3
    ON CONFLICT (hour, tenant, tool) DO UPDATE SET arguments_mismatches = t.arguments_mismatches + EXCLUDED.arguments_mismatches`;
}
