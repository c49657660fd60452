-- Minute slices of the hours not rolled up yet, and the latency histogram moved into the count
-- rows (issue #9, docs/bench.md).

-- 1. The time-to-complete histogram becomes a column of metrics_hourly: {"bucket": completions}
--    for the buckets that have any (lib/metrics/latency-histogram.ts). As separate rows it was
--    ~16 rows per (hour, tenant, tool): 15,500 rows for 48 h, 4.6 ms to sum at 10 M rows, and as
--    many again for the open hour's slices — read now with the counts, one row per group.
ALTER TABLE "metrics_hourly" ADD COLUMN "latency" JSONB NOT NULL DEFAULT '{}';
UPDATE "metrics_hourly" h SET "latency" = l."histogram"
  FROM (SELECT "hour", "tenant", "tool", jsonb_object_agg("bucket"::text, "completions") AS "histogram"
          FROM "metrics_hourly_latency" GROUP BY 1, 2, 3) l
 WHERE h."hour" = l."hour" AND h."tenant" = l."tenant" AND h."tool" = l."tool";
-- Every bucket row had its count row (a completion is counted where its latency is), so nothing is lost.
DROP TABLE "metrics_hourly_latency";

-- 2. Minute slices. The hourly rollup leaves the current hour (and the previous one for 5 minutes)
--    to be counted live from the base tables: at 60 calls a second up to 230,000 rows per metrics
--    request (1.3 s at 10 M rows). Each minute is rolled up here once it has settled, by the same
--    rules as an hour (lib/metrics/source-counts.ts), so a request counts at most a minute or so
--    live. Slices are provisional: once an hour is rolled up its figures come from metrics_hourly
--    and its slices are pruned (lib/metrics/minute-rollup.ts). Same columns, keyed by the minute.
CREATE TABLE "metrics_minute" (LIKE "metrics_hourly" INCLUDING DEFAULTS);
ALTER TABLE "metrics_minute" RENAME COLUMN "hour" TO "minute";
ALTER TABLE "metrics_minute" ADD CONSTRAINT "metrics_minute_pkey" PRIMARY KEY ("minute", "tenant", "tool");

-- The minutes rolled up, once each (as metrics_rollup_hour for hours).
CREATE TABLE "metrics_rollup_minute" (
    "minute"       TIMESTAMPTZ(6) NOT NULL,
    "rolled_up_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "metrics_rollup_minute_pkey" PRIMARY KEY ("minute")
);
