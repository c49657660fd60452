-- Issue #26: two optional columns the writer kit (idem-guard, TypeScript and Python) fills.
-- arguments_sha256: sha256 hex of the call's canonical arguments alone (the canonical form the key
-- hashes, without tenant, subject, tool or bucket). With tenant, subject and tool it names one
-- operation across time buckets. client: the calling host as the MCP initialize handshake named it
-- ("name version"). Writers that fill neither keep working; the console shows "not recorded".
-- Adding a nullable column without a default rewrites nothing: instant on a large table.
ALTER TABLE "idempotency" ADD COLUMN IF NOT EXISTS "arguments_sha256" TEXT;
ALTER TABLE "idempotency_event" ADD COLUMN IF NOT EXISTS "client" TEXT;
