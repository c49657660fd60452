-- Issue #32: a tamper-evident audit trail (docs/audit-chain.md).
-- Each audit row carries its place in one chain (chain_seq), the hash of the row before it (prev_hash) and
-- its own hash: sha256 over its canonical content, prev_hash included. `idem audit verify` recomputes the
-- hashes outside the database; a row changed, removed or slipped in by the schema's owner breaks the chain.

ALTER TABLE "audit_log"
    ADD COLUMN "chain_seq" BIGINT,
    ADD COLUMN "prev_hash" TEXT,
    ADD COLUMN "hash"      TEXT;

-- The canonical content, byte for byte as docs/audit-chain.md defines it: each column in this order as
-- `<UTF-8 byte length>:<text>`, a NULL as `-`; `at` as integer microseconds since the epoch, JSON as jsonb::text.
-- The verifier never calls this: it rebuilds the same text in Node from the row's column texts.
CREATE OR REPLACE FUNCTION "audit_log_chain_field"(v text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v IS NULL THEN '-' ELSE octet_length(v)::text || ':' || v END
$$;
-- PL/pgSQL, not SQL: its expression is planned once per session, where a SQL function that cannot be
-- inlined would be planned again for every row the trigger hashes.
CREATE OR REPLACE FUNCTION "audit_log_chain_content"(r "audit_log") RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN "audit_log_chain_field"(r.chain_seq::text) || "audit_log_chain_field"(r.id::text)
        || "audit_log_chain_field"((extract(epoch FROM r.at) * 1000000)::bigint::text)
        || "audit_log_chain_field"(r.actor) || "audit_log_chain_field"(r.actor_role)
        || "audit_log_chain_field"(r.action) || "audit_log_chain_field"(r.key)
        || "audit_log_chain_field"(r.tenant) || "audit_log_chain_field"(r.before::text)
        || "audit_log_chain_field"(r.after::text) || "audit_log_chain_field"(r.reason)
        || "audit_log_chain_field"(r.evidence::text) || "audit_log_chain_field"(r.prev_hash);
END;
$$;

-- Existing rows join the chain in id order. The ADD COLUMN above holds the table's ACCESS EXCLUSIVE lock
-- until this migration commits, so no insert lands meanwhile.
ALTER TABLE "audit_log" DISABLE TRIGGER "audit_log_append_only";
DO $$
DECLARE
    r "audit_log";
    seq BIGINT := 0;
    prev TEXT := repeat('0', 64);
BEGIN
    FOR r IN SELECT * FROM "audit_log" ORDER BY "id" LOOP
        seq := seq + 1;
        r.chain_seq := seq;
        r.prev_hash := prev;
        r.hash := encode(sha256(convert_to("audit_log_chain_content"(r), 'UTF8')), 'hex');
        UPDATE "audit_log" SET "chain_seq" = r.chain_seq, "prev_hash" = r.prev_hash, "hash" = r.hash
            WHERE "id" = r.id;
        prev := r.hash;
    END LOOP;
END;
$$;
ALTER TABLE "audit_log" ENABLE TRIGGER "audit_log_append_only";

ALTER TABLE "audit_log"
    ALTER COLUMN "chain_seq" SET NOT NULL,
    ALTER COLUMN "prev_hash" SET NOT NULL,
    ALTER COLUMN "hash" SET NOT NULL;
-- One row per place: two inserts that read the same predecessor cannot both commit (a fork is refused).
CREATE UNIQUE INDEX "audit_log_chain_seq_key" ON "audit_log" ("chain_seq");

-- Appends under a transaction-scoped advisory lock, held until commit: the next insert waits for this
-- transaction to end, then reads its row (committed, so visible) as the newest. Works through a
-- transaction pooler and on the embedded database, where a transaction holds the one backend anyway.
CREATE OR REPLACE FUNCTION "audit_log_chain_append"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    last_seq BIGINT;
    last_hash TEXT;
BEGIN
    PERFORM pg_advisory_xact_lock(7270736932);
    SELECT "chain_seq", "hash" INTO last_seq, last_hash FROM "audit_log" ORDER BY "chain_seq" DESC LIMIT 1;
    NEW.chain_seq := COALESCE(last_seq, 0) + 1;
    NEW.prev_hash := COALESCE(last_hash, repeat('0', 64));
    NEW.hash := encode(sha256(convert_to("audit_log_chain_content"(NEW), 'UTF8')), 'hex');
    RETURN NEW;
END;
$$;
CREATE TRIGGER "audit_log_chain"
    BEFORE INSERT ON "audit_log"
    FOR EACH ROW EXECUTE FUNCTION "audit_log_chain_append"();

-- Each `idem audit verify`: when, from and through which row, and the first row that did not match.
CREATE TABLE "audit_chain_verification" (
    "id"           BIGSERIAL PRIMARY KEY,
    "started_at"   TIMESTAMPTZ NOT NULL,
    "finished_at"  TIMESTAMPTZ NOT NULL,
    "actor"        TEXT NOT NULL,
    "from_id"      BIGINT,
    "rows"         BIGINT NOT NULL,
    -- The last row that matched (NULL: none did, or the chain is empty).
    "through_id"   BIGINT,
    "ok"           BOOLEAN NOT NULL,
    "first_bad_id" BIGINT,
    "problem"      TEXT CHECK ("problem" IN ('content', 'link')),
    CHECK ("ok" = ("first_bad_id" IS NULL AND "problem" IS NULL))
);
