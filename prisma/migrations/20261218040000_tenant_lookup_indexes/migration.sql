-- Whether a tenant exists (lib/records/tenant-filter.ts) is asked on every page and API call
-- that names one: a tenant exists when the idempotency table, the audit log or the hourly
-- metrics hold a row for it. Each probe reads the tenant's newest row from an index led by
-- tenant: idempotency has ("tenant", "created_at" DESC, "key" DESC) already; these are the other
-- two (the audit log grows without bound, and the hourly rollup's primary key starts with the hour).
-- The audit index also serves the audit page's tenant filter, newest first. Not partial (WHERE
-- tenant IS NOT NULL): a prepared statement's generic plan cannot prove `tenant = $1` implies it
-- and falls back to scanning audit_log_at_idx (190 ms at 500,000 entries, against 0.05 ms).
-- On a large audit log, create it first by hand with CREATE INDEX CONCURRENTLY (same name and
-- definition); this statement then does nothing.
CREATE INDEX IF NOT EXISTS "audit_log_tenant_at_idx" ON "audit_log" ("tenant", "at" DESC, "id" DESC);
CREATE INDEX IF NOT EXISTS "metrics_hourly_tenant_hour_idx" ON "metrics_hourly" ("tenant", "hour" DESC);
