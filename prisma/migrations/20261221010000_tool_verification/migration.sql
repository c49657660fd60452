-- Issue #18: the double-call test's results, kept as evidence beside the traffic the tool audit reads.
-- One row per verification run (verify-tool, the CLI or the Tools page's "Verify…"). Append-only.
CREATE TABLE "tool_verification" (
    "id" BIGSERIAL PRIMARY KEY,
    "server" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    -- The listing the run saw: the snapshot taken for it (NULL once trimmed) and a sha256 of the tool's own
    -- entry in it (name, annotations, input schema, canonical JSON). A later listing whose entry hashes
    -- differently makes this run stale.
    "snapshot_id" BIGINT REFERENCES "tool_snapshot" ("id") ON DELETE SET NULL,
    "listing_hash" TEXT NOT NULL,
    -- sha256 hex of the canonical arguments: the arguments themselves may hold personal data.
    "arguments_hash" TEXT NOT NULL,
    "concurrency" INTEGER NOT NULL CHECK ("concurrency" BETWEEN 2 AND 8),
    "verdict" TEXT NOT NULL CHECK ("verdict" IN ('verified', 'failed', 'inconclusive')),
    -- failed: the first step that failed; inconclusive: the step that could not be exercised.
    "step" TEXT CHECK ("step" IN ('answers', 'table', 'upstream')),
    -- One sentence: "the carrier created 2 shipments", "the first call finished before the repeats arrived …".
    "summary" TEXT NOT NULL,
    -- VerificationEvidence (lib/annotations/tool-verification-types.ts).
    "evidence" JSONB NOT NULL,
    "started_at" TIMESTAMPTZ NOT NULL,
    "finished_at" TIMESTAMPTZ NOT NULL,
    "verified_by" TEXT NOT NULL
);
CREATE INDEX "tool_verification_latest_idx" ON "tool_verification" ("server", "tool", "finished_at" DESC, "id" DESC);
