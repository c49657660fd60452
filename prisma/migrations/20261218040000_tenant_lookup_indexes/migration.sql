-- Whether a tenant exists (lib/records/tenant-filter.ts) is asked on every page and API call
-- that names one: a tenant exists when the idempotency table, the audit log or the hourly
-- metrics hold a row for it. idempotency has ("tenant", …) already; these two make the other
-- EXISTS probes index look-ups instead of scans (the audit log grows without bound, and the
-- hourly rollup's primary key starts with the hour).
-- The audit index also serves the audit page's tenant filter, newest first.
-- On a large audit log, create it first by hand with CREATE INDEX CONCURRENTLY (same name and
-- definition); this statement then does nothing.
CREATE INDEX IF NOT EXISTS "audit_log_tenant_at_idx"
    ON "audit_log" ("tenant", "at" DESC, "id" DESC) WHERE "tenant" IS NOT NULL;
CREATE INDEX IF NOT EXISTS "metrics_hourly_tenant_idx" ON "metrics_hourly" ("tenant");
