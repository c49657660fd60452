-- Annotation audit (issue #7): MCP servers admins add in the UI, every tools/list the console
-- reads (or an admin uploads) kept as a timestamped snapshot, and admin reviews of idempotency claims.

-- HTTP servers added in the UI. stdio servers never appear here: they run a command on the
-- console's host, so they come only from idem.config.json. Header values are secrets: stored for
-- the connection, never returned by the API or shown in the UI (only header names are).
CREATE TABLE IF NOT EXISTS "mcp_server" (
  "name"       text PRIMARY KEY,
  "url"        text NOT NULL,
  "headers"    jsonb NOT NULL DEFAULT '{}'::jsonb,
  "created_by" text NOT NULL,
  "created_at" timestamptz(6) NOT NULL DEFAULT now()
);

-- One row per listing. `tools` is the tools/list result's tools array as the server sent it
-- (every page concatenated), so a later reader can re-derive anything; `error` holds why a live
-- listing failed (then `tools` is NULL) so a server's failures have a history too.
CREATE TABLE IF NOT EXISTS "tool_snapshot" (
  "id"       bigserial PRIMARY KEY,
  "server"   text NOT NULL,
  "taken_at" timestamptz(6) NOT NULL DEFAULT now(),
  "source"   text NOT NULL CHECK ("source" IN ('live', 'upload')),
  "tools"    jsonb,
  "error"    text,
  "taken_by" text NOT NULL,
  CHECK (("tools" IS NULL) <> ("error" IS NULL))
);
-- "latest two good snapshots of a server" and "latest attempt of a server".
CREATE INDEX IF NOT EXISTS "tool_snapshot_server_taken_at_idx" ON "tool_snapshot" ("server", "taken_at" DESC, "id" DESC);

-- An admin's word that a tool claiming idempotentHint with no key evidence is naturally
-- idempotent (a set, not an append). The newest review per (server, tool) is the one shown;
-- older ones stay as history. Each insert is audited in the same transaction.
CREATE TABLE IF NOT EXISTS "annotation_review" (
  "id"          bigserial PRIMARY KEY,
  "server"      text NOT NULL,
  "tool"        text NOT NULL,
  "verdict"     text NOT NULL,
  "reason"      text NOT NULL,
  "reviewed_by" text NOT NULL,
  "reviewed_at" timestamptz(6) NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS "annotation_review_server_tool_idx" ON "annotation_review" ("server", "tool", "reviewed_at" DESC);
