-- Issue #30: an operator's bulk apply records its run in job_run like the reconciler and the trim
-- (lib/resolve/bulk-apply-run.ts): rows asked about, completed, released, and left (conflict,
-- changed outcome, error). job_run is one row per run, so rechecking the constraint is instant.
ALTER TABLE "job_run" DROP CONSTRAINT "job_run_job_check";
ALTER TABLE "job_run" ADD CONSTRAINT "job_run_job_check" CHECK ("job" IN ('reconcile', 'trim', 'bulk_apply'));
