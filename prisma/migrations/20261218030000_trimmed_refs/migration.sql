-- What a retention batch deleted, so a lookup can say "trimmed by run X" instead of "never seen"
-- (issue #13). The batch's audit row counts what it deleted; this names it, exactly, in little room:
-- per batch and tenant, the deleted rows' refs (the key's first 12 hex characters, 48 bits) are
-- sorted and packed 6 bytes each into a few chunks, split by the refs' top `bucket_bits` bits so that
-- a chunk holds about 64 or more of them (lib/retention/trimmed-refs.ts). About 7 bytes per trimmed
-- row against the table's ~400, where one row per ref would take ~65 (heap and index); a Bloom
-- filter (~1.2 bytes) could only say "probably". A lookup probes 9 (bucket_bits, bucket) pairs per
-- ref on the index below. Chunks are pruned after 30 days (the trim does it): past that, a ref's fate
-- is not known, and the lookup says so.
CREATE TABLE IF NOT EXISTS "trimmed_ref_chunk" (
    "id"          BIGSERIAL NOT NULL,
    -- The batch's retention.trim (or retention.trim_unresolved) audit row: when, by whom, the run.
    "audit_id"    BIGINT NOT NULL,
    "trimmed_at"  TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "tenant"      TEXT NOT NULL,
    "bucket_bits" SMALLINT NOT NULL,
    "bucket"      SMALLINT NOT NULL,
    -- Sorted, distinct 6-byte refs whose top bucket_bits bits equal bucket.
    "refs"        BYTEA NOT NULL,
    CONSTRAINT "trimmed_ref_chunk_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "trimmed_ref_chunk_bucket_check" CHECK ("bucket_bits" BETWEEN 0 AND 8 AND "bucket" >= 0 AND "bucket" < (1 << "bucket_bits")),
    CONSTRAINT "trimmed_ref_chunk_refs_check" CHECK (length("refs") > 0 AND length("refs") % 6 = 0)
);
CREATE INDEX IF NOT EXISTS "trimmed_ref_chunk_bucket_idx" ON "trimmed_ref_chunk" ("bucket_bits", "bucket", "tenant");
CREATE INDEX IF NOT EXISTS "trimmed_ref_chunk_trimmed_at_idx" ON "trimmed_ref_chunk" ("trimmed_at");
