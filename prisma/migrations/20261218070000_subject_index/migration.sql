-- The records list, its facets and the export filter by subject (the authenticated caller a
-- writer records; support looks up one customer's calls). Without this index a subject filter
-- walks idempotency_created_at_key_idx and filters every row: at 10 M rows 0.8 s for a subject
-- with 578 rows and 3.4 s for a subject with none (docs/indexes.md, "Subject filter"); with it,
-- the subject is an Index Cond in list order and the cursor's (created_at, key) bound joins it
-- (0.1–0.5 ms). Partial: rows of writers that do not record a subject (NULL) take no space, and
-- `subject = $1` is strict, so PostgreSQL proves the predicate even for a generic plan
-- (measured: Index Cond: (subject = $1)).
-- On a large table that writers already use, create it first by hand with
--   CREATE INDEX CONCURRENTLY "idempotency_subject_created_at_key_idx" ON "idempotency"
--     ("subject", "created_at" DESC, "key" DESC) WHERE "subject" IS NOT NULL;
-- (about 1.1 GB and a minute at 10 M rows here); this statement then does nothing.
CREATE INDEX IF NOT EXISTS "idempotency_subject_created_at_key_idx"
    ON "idempotency" ("subject", "created_at" DESC, "key" DESC) WHERE "subject" IS NOT NULL;
