/**
 * How long the idempotency table keeps a row: the nightly trim's default `--older-than`, and
 * what the lookup tells a reader about a ref older than that. The one place the 48 h is written.
 */
export const RETENTION_MS = 48 * 3_600_000;
