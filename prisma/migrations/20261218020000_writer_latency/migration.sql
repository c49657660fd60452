-- Time to complete measures writers only (issue #13). Completions the console made itself — a
-- resolve, a bulk apply, the reconciler — are known by their audit rows (written in the same
-- transaction as the compare-and-set, `after.version` = the row's updated_at to the microsecond); until now their
-- resolution delay (often an hour or more) was counted in `latency` as if a writer had taken that
-- long. `latency` keeps the writers' completions; console resolutions (complete and release) get
-- their own histograms, delay = audit time − the claim's created_at, by who resolved them.
-- Bucket rule as lib/metrics/latency-histogram.ts: 0 under 1 ms, else floor(log2(ms) * 4) + 1.
ALTER TABLE "metrics_hourly" ADD COLUMN "operator_latency" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "metrics_hourly" ADD COLUMN "reconciler_latency" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "metrics_minute" ADD COLUMN "operator_latency" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "metrics_minute" ADD COLUMN "reconciler_latency" JSONB NOT NULL DEFAULT '{}';

-- 1. Rolled-up hours are migrated exactly, from the audit log alone (append-only, never trimmed),
--    so hours whose rows are gone keep their figures: each console completion leaves the writers'
--    histogram of its completion hour...
WITH console_completions AS (
    SELECT date_bin('1 hour', COALESCE(("after"->>'version')::timestamptz, ("after"->>'updatedAt')::timestamptz), '2000-01-01T00:00:00Z') AS "hour",
           COALESCE("tenant", "before"->>'tenant') AS "tenant", COALESCE("before"->>'tool', '') AS "tool",
           (CASE WHEN ms < 1 THEN 0 ELSE floor(ln(ms) / ln(2) * 4)::int + 1 END)::text AS "bucket", count(*) AS "n"
      FROM "audit_log",
           LATERAL (SELECT (extract(epoch FROM (COALESCE(("after"->>'version')::timestamptz, ("after"->>'updatedAt')::timestamptz) - ("before"->>'createdAt')::timestamptz)) * 1000)::float8 AS ms) d
     WHERE "action" = 'record.complete' AND "after"->>'updatedAt' IS NOT NULL AND "before"->>'createdAt' IS NOT NULL
     GROUP BY 1, 2, 3, 4
), per_row AS (
    SELECT "hour", "tenant", "tool", jsonb_object_agg("bucket", "n") AS "sub" FROM console_completions GROUP BY 1, 2, 3
)
UPDATE "metrics_hourly" m
   SET "latency" = (SELECT COALESCE(jsonb_object_agg(b.key, b.left_over), '{}'::jsonb)
                      FROM (SELECT e.key, e.value::int8 - COALESCE((p."sub"->>e.key)::int8, 0) AS left_over
                              FROM jsonb_each_text(m."latency") e) b
                     WHERE b.left_over > 0)
  FROM per_row p
 WHERE m."hour" = p."hour" AND m."tenant" = p."tenant" AND m."tool" = p."tool";

--    ...and every console resolution of a rolled-up hour is put into its own histogram, in the hour
--    of its audit row (where resolved_by_operator / resolved_by_reconciler already count it). The
--    reconciler's rows are those of system:reconciler or with its reason prefix.
WITH resolutions AS (
    SELECT date_bin('1 hour', "at", '2000-01-01T00:00:00Z') AS "hour",
           COALESCE("tenant", "before"->>'tenant') AS "tenant", COALESCE("before"->>'tool', '') AS "tool",
           ("actor" = 'system:reconciler' OR starts_with(COALESCE("reason", ''), 'reconciler: ')) AS "by_reconciler",
           (CASE WHEN ms < 1 THEN 0 ELSE floor(ln(ms) / ln(2) * 4)::int + 1 END)::text AS "bucket", count(*) AS "n"
      FROM "audit_log",
           LATERAL (SELECT (extract(epoch FROM ("at" - ("before"->>'createdAt')::timestamptz)) * 1000)::float8 AS ms) d
     WHERE "action" IN ('record.complete', 'record.release', 'record.force_release') AND "before"->>'createdAt' IS NOT NULL
     GROUP BY 1, 2, 3, 4, 5
), histograms AS (
    SELECT "hour", "tenant", "tool",
           COALESCE(jsonb_object_agg("bucket", "n") FILTER (WHERE NOT "by_reconciler"), '{}'::jsonb) AS "operator_latency",
           COALESCE(jsonb_object_agg("bucket", "n") FILTER (WHERE "by_reconciler"), '{}'::jsonb) AS "reconciler_latency"
      FROM resolutions GROUP BY 1, 2, 3
)
UPDATE "metrics_hourly" m
   SET "operator_latency" = h."operator_latency", "reconciler_latency" = h."reconciler_latency"
  FROM histograms h
 WHERE m."hour" = h."hour" AND m."tenant" = h."tenant" AND m."tool" = h."tool";

-- 2. Minute slices cover only the open hours, whose rows are all still in the table: they are
--    dropped and rolled again from the base tables by the next read (lib/metrics/minute-rollup.ts).
DELETE FROM "metrics_minute";
DELETE FROM "metrics_rollup_minute";
