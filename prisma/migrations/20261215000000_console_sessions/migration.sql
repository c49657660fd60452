-- Server-side sessions: the signed cookie names a row here, so a session can be ended before its
-- cookie expires (sign-out, idle timeout, a disabled user) and the console can say why.
CREATE TABLE "console_session" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "last_seen_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "ended_at" TIMESTAMPTZ(6),
    "ended_reason" TEXT,
    "user_agent" TEXT,

    CONSTRAINT "console_session_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "console_session_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "console_user"("id") ON DELETE CASCADE
);

-- Ending every open session of a user (disable) reads by user.
CREATE INDEX "console_session_user_id_idx" ON "console_session" ("user_id") WHERE "ended_at" IS NULL;
