-- The record page names the duplicates a claim is part of, as the later execution (second_key, the
-- primary key) or the earlier one (first_key, this index). duplicate_through holds only duplicates,
-- so the index is small and the writers never touch it.
CREATE INDEX IF NOT EXISTS "duplicate_through_first_key_idx" ON "duplicate_through" ("first_key");
