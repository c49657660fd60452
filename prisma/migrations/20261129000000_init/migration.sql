-- The idempotency contract table (DESIGN §3). Writers run the reference text's statements
-- against it unchanged. COLLATE "C" lets the single primary-key index serve ON CONFLICT,
-- exact look-ups and the 12-hex ref prefix range; a language collation would force a scan.
CREATE TABLE IF NOT EXISTS "idempotency" (
    "key"        TEXT COLLATE "C" NOT NULL,
    "tenant"     TEXT NOT NULL,
    "subject"    TEXT,
    "tool"       TEXT,
    "status"     TEXT NOT NULL,
    "response"   JSONB,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "updated_at" TIMESTAMPTZ(6),
    CONSTRAINT "idempotency_pkey" PRIMARY KEY ("key")
);

-- A table created earlier by writers following the reference text has only
-- key, tenant, status, response and created_at: adopt it, adding the optional columns.
ALTER TABLE "idempotency" ADD COLUMN IF NOT EXISTS "subject" TEXT;
ALTER TABLE "idempotency" ADD COLUMN IF NOT EXISTS "tool" TEXT;
ALTER TABLE "idempotency" ADD COLUMN IF NOT EXISTS "updated_at" TIMESTAMPTZ(6);

-- A table writers created with a language collation on key would turn every ref-prefix
-- look-up into a full scan (about 1 s at 10 M rows): give the key the "C" collation. This
-- rebuilds the primary key under an exclusive lock, once; a table created here skips it.
DO $$
BEGIN
    IF (SELECT collation_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'idempotency' AND column_name = 'key') IS DISTINCT FROM 'C' THEN
        ALTER TABLE "idempotency" ALTER COLUMN "key" TYPE TEXT COLLATE "C";
    END IF;
END
$$;

-- Claims without an outcome: stuck lists and counts, and any status other than completed
-- (shown as-is). Tiny, since nearly every row is completed; `status = 'in_progress'` queries
-- use it because the planner proves they imply the predicate. See docs/indexes.md.
CREATE INDEX IF NOT EXISTS "idempotency_not_completed_created_at_idx"
    ON "idempotency" ("created_at", "key") WHERE "status" <> 'completed';

-- The records list: newest first, keyset-paged on (created_at, key). Support filters by
-- tenant; engineers by tool (a rare tool would otherwise scan the table: 616 ms at 3 M rows).
CREATE INDEX IF NOT EXISTS "idempotency_created_at_key_idx"
    ON "idempotency" ("created_at" DESC, "key" DESC);
CREATE INDEX IF NOT EXISTS "idempotency_tenant_created_at_key_idx"
    ON "idempotency" ("tenant", "created_at" DESC, "key" DESC);
CREATE INDEX IF NOT EXISTS "idempotency_tool_created_at_key_idx"
    ON "idempotency" ("tool", "created_at" DESC, "key" DESC);

-- Writer events (replay served, in-flight rejection, outcome unknown). No foreign key:
-- events outlive the rows they describe (trim, release).
CREATE TABLE IF NOT EXISTS "idempotency_event" (
    "id"     BIGSERIAL NOT NULL,
    "key"    TEXT COLLATE "C" NOT NULL,
    "tenant" TEXT NOT NULL,
    "tool"   TEXT,
    "kind"   TEXT NOT NULL,
    "at"     TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "detail" JSONB,
    CONSTRAINT "idempotency_event_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "idempotency_event_kind_check"
        CHECK ("kind" IN ('replay_served', 'in_flight_rejected', 'outcome_unknown'))
);
CREATE INDEX IF NOT EXISTS "idempotency_event_key_at_idx" ON "idempotency_event" ("key", "at");
CREATE INDEX IF NOT EXISTS "idempotency_event_at_idx" ON "idempotency_event" ("at");

-- Operator actions. Append-only, enforced by the database rather than by convention.
CREATE TABLE IF NOT EXISTS "audit_log" (
    "id"         BIGSERIAL NOT NULL,
    "at"         TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "actor"      TEXT NOT NULL,
    "actor_role" TEXT NOT NULL,
    "action"     TEXT NOT NULL,
    "key"        TEXT COLLATE "C",
    "tenant"     TEXT,
    "before"     JSONB,
    "after"      JSONB,
    "reason"     TEXT,
    "evidence"   JSONB,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "audit_log_key_at_idx" ON "audit_log" ("key", "at");
CREATE INDEX IF NOT EXISTS "audit_log_at_idx" ON "audit_log" ("at" DESC);

CREATE OR REPLACE FUNCTION "audit_log_reject_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

DROP TRIGGER IF EXISTS "audit_log_append_only" ON "audit_log";
CREATE TRIGGER "audit_log_append_only"
    BEFORE UPDATE OR DELETE ON "audit_log"
    FOR EACH ROW EXECUTE FUNCTION "audit_log_reject_change"();
DROP TRIGGER IF EXISTS "audit_log_no_truncate" ON "audit_log";
CREATE TRIGGER "audit_log_no_truncate"
    BEFORE TRUNCATE ON "audit_log"
    FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_reject_change"();

-- Console users. An empty tenant list means every tenant.
CREATE TABLE IF NOT EXISTS "console_user" (
    "id"              TEXT NOT NULL,
    "email"           TEXT NOT NULL,
    "name"            TEXT NOT NULL,
    "role"            TEXT NOT NULL,
    "tenants"         TEXT[] NOT NULL DEFAULT '{}',
    "password_hash"   TEXT,
    "disabled_at"     TIMESTAMPTZ(6),
    "created_at"      TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "last_sign_in_at" TIMESTAMPTZ(6),
    CONSTRAINT "console_user_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "console_user_role_check" CHECK ("role" IN ('viewer', 'operator', 'admin'))
);
CREATE UNIQUE INDEX IF NOT EXISTS "console_user_email_key" ON "console_user" ("email");

-- Bearer tokens for scripts. Only the sha256 of a token is stored.
CREATE TABLE IF NOT EXISTS "api_token" (
    "id"           TEXT NOT NULL,
    "name"         TEXT NOT NULL,
    "token_hash"   TEXT NOT NULL,
    "prefix"       TEXT NOT NULL,
    "role"         TEXT NOT NULL,
    "tenants"      TEXT[] NOT NULL DEFAULT '{}',
    "created_by"   TEXT NOT NULL,
    "created_at"   TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "expires_at"   TIMESTAMPTZ(6),
    "last_used_at" TIMESTAMPTZ(6),
    "revoked_at"   TIMESTAMPTZ(6),
    CONSTRAINT "api_token_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "api_token_role_check" CHECK ("role" IN ('viewer', 'operator', 'admin'))
);
CREATE UNIQUE INDEX IF NOT EXISTS "api_token_token_hash_key" ON "api_token" ("token_hash");
