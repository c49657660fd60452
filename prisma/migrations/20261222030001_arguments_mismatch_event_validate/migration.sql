-- Validates the widened event-kind CHECK (previous migration) under SHARE UPDATE EXCLUSIVE, which
-- lets writers keep appending events while the table is scanned.
ALTER TABLE "idempotency_event" VALIDATE CONSTRAINT "idempotency_event_kind_check";
