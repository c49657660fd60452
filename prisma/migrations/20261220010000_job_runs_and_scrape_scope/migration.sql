-- Issue #17: what Prometheus needs to say when the console's jobs last ran, and a token that may only scrape.

-- Every reconcile and trim run (dry runs included, marked), so the metrics and the overview can say
-- when each last ran and what it did. Small: one row per run; read newest first per job.
CREATE TABLE "job_run" (
    "id" UUID PRIMARY KEY,
    "job" TEXT NOT NULL CHECK ("job" IN ('reconcile', 'trim')),
    "actor" TEXT NOT NULL,
    "dry_run" BOOLEAN NOT NULL,
    "started_at" TIMESTAMPTZ NOT NULL,
    "finished_at" TIMESTAMPTZ NOT NULL,
    -- reconcile: candidates, completed (taken), released (not taken), left unknown (left + conflict + errors);
    -- trim: rows and events deleted, in_progress rows kept past the cutoff.
    "candidates" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "released" INTEGER NOT NULL DEFAULT 0,
    "left_unknown" INTEGER NOT NULL DEFAULT 0,
    "deleted" INTEGER NOT NULL DEFAULT 0,
    "kept" INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX "job_run_job_finished_at_idx" ON "job_run" ("job", "finished_at" DESC);

-- A token's scope: 'full' (what its role allows) or 'metrics' (the Prometheus scrape and nothing else).
ALTER TABLE "api_token" ADD COLUMN "scope" TEXT NOT NULL DEFAULT 'full' CHECK ("scope" IN ('full', 'metrics'));

-- The scrape's resolution counters read every resolution audit row ever written (they grow with
-- resolutions, not with the table): a partial index holding only those rows, with what the counter
-- groups by, so the count is index-only once vacuum has marked the pages all-visible.
CREATE INDEX IF NOT EXISTS "audit_log_resolutions_idx" ON "audit_log" (
    "action",
    (COALESCE("before" ->> 'tool', '')),
    (CASE WHEN "actor" = 'system:reconciler' OR starts_with(COALESCE("reason", ''), 'reconciler: ') THEN 'reconciler'
          WHEN starts_with(COALESCE("reason", ''), 'bulk: ') THEN 'bulk' ELSE 'operator' END)
) WHERE "action" IN ('record.complete', 'record.release', 'record.force_release');
