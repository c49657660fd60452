-- Issue #27: duplicates that got through. One operation (tenant, subject, tool, arguments_sha256)
-- executed under two keys less than a window apart: a retry that fell into the following bucket.
-- The finder probes this index once per scanned claim (the nearest earlier claim of the same
-- operation). Partial: writers that record no arguments_sha256 (the reference writer) take no
-- space and pay no write cost for it (bench-writers measures the cost for writers that do).
-- On a large table that writers already use, create it first by hand with
-- CREATE INDEX CONCURRENTLY (same name and definition); this statement then does nothing.
CREATE INDEX IF NOT EXISTS "idempotency_operation_created_at_idx"
    ON "idempotency" ("tenant", "subject", "tool", "arguments_sha256", "created_at")
    WHERE "arguments_sha256" IS NOT NULL;

-- Each duplicate found: the later execution (one row per claim: it pairs with its nearest earlier
-- claim of the same operation). Kept beyond the 48 h table, like the roll-ups; the scan writes it.
CREATE TABLE IF NOT EXISTS "duplicate_through" (
    "second_key"       TEXT COLLATE "C" PRIMARY KEY,
    "first_key"        TEXT COLLATE "C" NOT NULL,
    "tenant"           TEXT NOT NULL,
    "subject"          TEXT,
    "tool"             TEXT NOT NULL,
    "arguments_sha256" TEXT NOT NULL,
    "first_at"         TIMESTAMPTZ(6) NOT NULL,
    "second_at"        TIMESTAMPTZ(6) NOT NULL,
    "window_s"         INTEGER NOT NULL,
    "found_at"         TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS "duplicate_through_second_at_idx" ON "duplicate_through" ("second_at" DESC, "second_key");
CREATE INDEX IF NOT EXISTS "duplicate_through_tool_second_at_idx" ON "duplicate_through" ("tool", "second_at" DESC);

-- Per claim hour, tenant and tool: claims scanned that carry arguments_sha256, and the duplicates
-- among them. hashed = 0 for a tool means its writer records no hash: "not recorded", never 0.
CREATE TABLE IF NOT EXISTS "duplicate_scan_hourly" (
    "hour"       TIMESTAMPTZ(6) NOT NULL,
    "tenant"     TEXT NOT NULL,
    "tool"       TEXT NOT NULL,
    "hashed"     BIGINT NOT NULL DEFAULT 0,
    "duplicates" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "duplicate_scan_hourly_pkey" PRIMARY KEY ("hour", "tenant", "tool")
);

-- How far the scan has read (claims created before this instant are scanned): one row.
CREATE TABLE IF NOT EXISTS "duplicate_scan_state" (
    "id"              SMALLINT PRIMARY KEY CHECK ("id" = 1),
    "scanned_through" TIMESTAMPTZ(6) NOT NULL,
    "scanned_at"      TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
