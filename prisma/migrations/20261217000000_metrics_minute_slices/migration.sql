-- Minute slices of the hours not rolled up yet (issue #9). The hourly rollup leaves the current
-- hour (and the previous one for 5 minutes) to be counted live from the base tables: at 60 calls
-- a second that is up to 230,000 rows per metrics request (1.3 s at 10 M rows, docs/bench.md).
-- Each minute is rolled up here once it has settled, by the same rules as an hour
-- (lib/metrics/source-counts.ts), so a request counts at most the last minute or two live.
-- Slices are provisional: once an hour is rolled up, its figures come from metrics_hourly and its
-- slices are pruned (lib/metrics/minute-rollup.ts).

-- The hourly tables' columns, keyed by the minute instead of the hour.
CREATE TABLE "metrics_minute" (LIKE "metrics_hourly" INCLUDING DEFAULTS);
ALTER TABLE "metrics_minute" RENAME COLUMN "hour" TO "minute";
ALTER TABLE "metrics_minute" ADD CONSTRAINT "metrics_minute_pkey" PRIMARY KEY ("minute", "tenant", "tool");

CREATE TABLE "metrics_minute_latency" (LIKE "metrics_hourly_latency" INCLUDING DEFAULTS);
ALTER TABLE "metrics_minute_latency" RENAME COLUMN "hour" TO "minute";
ALTER TABLE "metrics_minute_latency" ADD CONSTRAINT "metrics_minute_latency_pkey" PRIMARY KEY ("minute", "tenant", "tool", "bucket");

-- The minutes rolled up, once each (as metrics_rollup_hour for hours).
CREATE TABLE "metrics_rollup_minute" (
    "minute"       TIMESTAMPTZ(6) NOT NULL,
    "rolled_up_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "metrics_rollup_minute_pkey" PRIMARY KEY ("minute")
);
