-- The open-claims index covers what stuck lists and counts read (issue #9, docs/bench.md): every
-- stuck count, the records facets' exact count of open statuses and the tools audit read all open
-- claims (0.3 % of the table: 30,000 rows at 10 M), and each of them paid a heap visit per row for
-- status, tenant and tool. With those columns included they are index-only scans. Same name, same
-- predicate, same key columns: plans that used it still do.
-- On a large table that writers already use, build the new index first by hand, e.g.
--   CREATE INDEX CONCURRENTLY "idempotency_open_created_at_tmp" ON "idempotency" ("created_at", "key")
--     INCLUDE ("status", "tenant", "tool") WHERE "status" <> 'completed';
-- then drop the old one and rename; this migration's DROP and CREATE hold a write lock for as long
-- as the table takes to scan (about 10 s at 10 M rows here).
DROP INDEX IF EXISTS "idempotency_not_completed_created_at_idx";
CREATE INDEX "idempotency_not_completed_created_at_idx"
    ON "idempotency" ("created_at", "key") INCLUDE ("status", "tenant", "tool") WHERE "status" <> 'completed';
