-- The tools audit counts claims still in flight after an outcome_unknown event in its window
-- (issue #9). Walking every open claim and probing its events cost 157 ms at 10 M rows (30,000
-- open claims); this partial index holds only outcome_unknown events (3 % of events), so the
-- window's few thousand are read index-only and each probes the claim by its primary key.
-- On a large table that writers already use, create it first by hand with
-- CREATE INDEX CONCURRENTLY (same name and definition); this statement then does nothing.
CREATE INDEX IF NOT EXISTS "idempotency_event_outcome_unknown_at_idx"
    ON "idempotency_event" ("at") INCLUDE ("key") WHERE "kind" = 'outcome_unknown';
