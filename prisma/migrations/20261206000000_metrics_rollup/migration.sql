-- Duplicate-suppression metrics (issue #6). Figures for closed hours come from these rollups,
-- never from a GROUP BY over 48 h of the base tables at request time (STACK.md: 6.8 s at 10 M
-- rows, 0.3–1.9 ms from an hourly rollup). lib/metrics/rollup.ts documents what counts where.

-- Completions are counted in the hour they happened (updated_at), so a claim that completes
-- hours after it was made is counted when that later hour closes, and a closed hour never has
-- to be reopened. Finding one hour's completions needs this index (without it: a full scan per
-- hour). Partial: writers that never set updated_at (the reference text's plain UPDATE) and
-- every in_progress claim stay out of it, so a claim's INSERT does not touch it; a completion
-- adds one entry (completions already update every index: `status` is in a partial index).
-- On a large table that writers already use, create it first by hand with
-- CREATE INDEX CONCURRENTLY (same name and definition); this statement then does nothing.
CREATE INDEX IF NOT EXISTS "idempotency_updated_at_idx"
    ON "idempotency" ("updated_at") WHERE "updated_at" IS NOT NULL;

-- One row per (hour, tenant, tool) that had anything to count. tool '' stands for rows whose
-- writer does not record the tool (NULL in idempotency): a primary key column cannot be NULL.
CREATE TABLE IF NOT EXISTS "metrics_hourly" (
    "hour"                   TIMESTAMPTZ(6) NOT NULL,
    "tenant"                 TEXT NOT NULL,
    "tool"                   TEXT NOT NULL,
    "executions"             BIGINT NOT NULL DEFAULT 0,
    "completed"              BIGINT NOT NULL DEFAULT 0,
    "replays_served"         BIGINT NOT NULL DEFAULT 0,
    "in_flight_rejected"     BIGINT NOT NULL DEFAULT 0,
    "outcome_unknown"        BIGINT NOT NULL DEFAULT 0,
    "resolved_by_operator"   BIGINT NOT NULL DEFAULT 0,
    "resolved_by_reconciler" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "metrics_hourly_pkey" PRIMARY KEY ("hour", "tenant", "tool")
);

-- Time to complete (updated_at - created_at) as a log-scale histogram: bucket 0 is under 1 ms,
-- bucket k >= 1 is [2^((k-1)/4), 2^(k/4)) ms. Counts add across hours, tenants and tools, so
-- p50/p95 of any selection are exact to the bucket (reported value within 9.1% of the true one).
CREATE TABLE IF NOT EXISTS "metrics_hourly_latency" (
    "hour"        TIMESTAMPTZ(6) NOT NULL,
    "tenant"      TEXT NOT NULL,
    "tool"        TEXT NOT NULL,
    "bucket"      SMALLINT NOT NULL,
    "completions" BIGINT NOT NULL,
    CONSTRAINT "metrics_hourly_latency_pkey" PRIMARY KEY ("hour", "tenant", "tool", "bucket")
);

-- The watermark: an hour listed here is closed and rolled up, once; its rows above are final.
-- A set of hours rather than one high-water mark, so a gap is visible and caught up hour by hour.
CREATE TABLE IF NOT EXISTS "metrics_rollup_hour" (
    "hour"         TIMESTAMPTZ(6) NOT NULL,
    "rolled_up_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "duration_ms"  INTEGER NOT NULL,
    CONSTRAINT "metrics_rollup_hour_pkey" PRIMARY KEY ("hour")
);

-- What a processor says it did, per claim hour, tenant and tool: `operations` references it
-- performed anything for, `side_effects` how many it performed. Only processors that count per
-- reference can fill it (the demo processor and carrier do; seed-demo writes their counts).
-- Real writers' tools have no rows here and show "not reported".
CREATE TABLE IF NOT EXISTS "processor_side_effect_count" (
    "hour"         TIMESTAMPTZ(6) NOT NULL,
    "tenant"       TEXT NOT NULL,
    "tool"         TEXT NOT NULL,
    "operations"   BIGINT NOT NULL,
    "side_effects" BIGINT NOT NULL,
    "reported_at"  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "processor_side_effect_count_pkey" PRIMARY KEY ("hour", "tenant", "tool")
);
