-- Issue #27: where repeats come from. Per event hour, tenant, tool, calling host and delay band: the
-- repeats writers recorded (replay_served, in_flight_rejected) and their delays after the first call
-- (the row's created_at → the event's at), counted by the duplicate scan as it reads settled events.
-- Kept beyond the 48 h table like the other roll-ups. client '' = the writer recorded no host.
-- `buckets` counts the delays per fixed edge (lib/repeats/repeat-delay-buckets.ts: the Prometheus
-- histogram's le edges, not cumulative; the last element is +Inf); delay_ms_sum gives its _sum.
-- On an existing install the scan's watermark is already past: repeats are counted from here on.
CREATE TABLE IF NOT EXISTS "repeat_delay_hourly" (
    "hour"         TIMESTAMPTZ(6) NOT NULL,
    "tenant"       TEXT NOT NULL,
    "tool"         TEXT NOT NULL,
    "client"       TEXT NOT NULL,
    "band"         TEXT NOT NULL,
    "repeats"      BIGINT NOT NULL,
    "delay_ms_sum" DOUBLE PRECISION NOT NULL,
    "buckets"      BIGINT[] NOT NULL,
    CONSTRAINT "repeat_delay_hourly_pkey" PRIMARY KEY ("hour", "tenant", "tool", "client", "band")
);

-- Arguments refused under a reused key (arguments_mismatch events), per event hour: the same scan
-- counts them, so the figure outlives the 48 h of events.
ALTER TABLE "duplicate_scan_hourly" ADD COLUMN IF NOT EXISTS "arguments_mismatches" BIGINT NOT NULL DEFAULT 0;

-- The mismatch list reads the window's arguments_mismatch events newest first: a small partial
-- index instead of the whole `at` range of every event.
CREATE INDEX IF NOT EXISTS "idempotency_event_arguments_mismatch_idx"
    ON "idempotency_event" ("at" DESC, "id" DESC) WHERE "kind" = 'arguments_mismatch';
