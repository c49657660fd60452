-- Failed sign-ins, kept in the database so the throttle holds across console instances.
-- account: the e-mail as typed, lower-cased; client: the caller's address as the console sees it.
CREATE TABLE "sign_in_failure" (
    "id" BIGSERIAL PRIMARY KEY,
    "account" TEXT NOT NULL,
    "client" TEXT NOT NULL,
    "at" TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX "sign_in_failure_account_at_idx" ON "sign_in_failure" ("account", "at" DESC);
CREATE INDEX "sign_in_failure_client_at_idx" ON "sign_in_failure" ("client", "at" DESC);
