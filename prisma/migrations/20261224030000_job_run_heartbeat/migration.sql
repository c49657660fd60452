-- Issue #32: a run is recorded when it starts and beats while it works, so a run that died (kill -9, a lost
-- machine) reads "did not finish" instead of looking like a run that never started. docs/operations.md.

-- NULL while the run works, and forever for one that died; set when it ends (finished or failed).
ALTER TABLE "job_run" ALTER COLUMN "finished_at" DROP NOT NULL;
-- Its last sign of life: written at the start, every beat and the end. Old rows: their end.
ALTER TABLE "job_run" ADD COLUMN "heartbeat_at" TIMESTAMPTZ;
UPDATE "job_run" SET "heartbeat_at" = "finished_at";
ALTER TABLE "job_run" ALTER COLUMN "heartbeat_at" SET NOT NULL;
-- The beat it promised: a run without an end whose heartbeat is six beats old died (IDEM_JOB_HEARTBEAT can
-- differ between the CLI that runs the job and the console that reads it, so each row says its own).
ALTER TABLE "job_run" ADD COLUMN "heartbeat_ms" INTEGER NOT NULL DEFAULT 10000 CHECK ("heartbeat_ms" > 0);
-- Why a run that ended by an error ended; NULL for a run that finished its work.
ALTER TABLE "job_run" ADD COLUMN "error" TEXT;
-- The earlier run of the same job that died, which this run found at its start and finished the rest of.
ALTER TABLE "job_run" ADD COLUMN "follows_run" UUID;

-- Runs without an end, newest first per job: the dead ones the pages and the scrape name.
CREATE INDEX "job_run_unfinished_idx" ON "job_run" ("job", "started_at" DESC) WHERE "finished_at" IS NULL;
