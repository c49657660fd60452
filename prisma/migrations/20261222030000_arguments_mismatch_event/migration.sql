-- Issue #27: the writer kit (idem-guard, TypeScript and Python) refuses a call whose key holds a
-- row recorded with other arguments (a business key reused for a different operation) and appends
-- an arguments_mismatch event. The event kinds' CHECK admits the fourth kind. Widening a CHECK
-- rejects no row that the old one admitted: NOT VALID adds it without scanning the table (a brief
-- ACCESS EXCLUSIVE lock), and the next migration validates it in its own transaction.
ALTER TABLE "idempotency_event"
    DROP CONSTRAINT IF EXISTS "idempotency_event_kind_check",
    ADD CONSTRAINT "idempotency_event_kind_check"
        CHECK ("kind" IN ('replay_served', 'in_flight_rejected', 'outcome_unknown', 'arguments_mismatch')) NOT VALID;
