/**
 * The reference writer's statements (docs/architecture.md#the-reference-writer), verbatim (whitespace included). The console's
 * table must keep running them unchanged; tests and the guard benchmark use these exact strings.
 */
export const REFERENCE_CLAIM = `INSERT INTO idempotency (key, tenant, status, created_at)
           VALUES ($1, $2, 'in_progress', now())
           ON CONFLICT (key) DO NOTHING
           RETURNING key`;
export const REFERENCE_LOOK_UP = "SELECT status, response FROM idempotency WHERE key=$1";
export const REFERENCE_COMPLETE = "UPDATE idempotency SET status='completed', response=$2 WHERE key=$1";
