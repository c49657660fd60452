import type { Queryable } from "./queryable.ts";

export type ClaimInput = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string;
  argumentsSha256: string;
  at: Date;
};
export type ClaimResult =
  | { claimed: true }
  | {
      claimed: false;
      status: string;
      response: unknown;
      /** The prior row's hash of its canonical arguments; null where its writer records none. */
      argumentsSha256: string | null;
    };

/**
 * Claims the key, or reads the row that holds it, in one round trip. The look-up in the same
 * statement uses the statement's snapshot, so a row whose writer committed while our INSERT
 * waited on it is invisible there: then, and only then, a second SELECT reads it. A prior row
 * comes with its `arguments_sha256`, so the guard can tell a repeat from another operation that
 * reuses the key without another round trip.
 */
const CLAIM_OR_READ = `
WITH claim AS (
  INSERT INTO idempotency (key, tenant, subject, tool, arguments_sha256, status, created_at)
  VALUES ($1, $2, $3, $4, $5, 'in_progress', $6)
  ON CONFLICT (key) DO NOTHING
  RETURNING key
)
SELECT true AS claimed, NULL::text AS status, NULL::jsonb AS response, NULL::text AS arguments_sha256 FROM claim
UNION ALL
SELECT false, i.status, i.response, i.arguments_sha256 FROM idempotency i
WHERE i.key = $1 AND NOT EXISTS (SELECT 1 FROM claim)`;

const READ = `SELECT status, response, arguments_sha256 FROM idempotency WHERE key = $1`;

type Row = { claimed: boolean; status: string | null; response: unknown; arguments_sha256: string | null };

export async function claimOrRead(db: Queryable, input: ClaimInput, onRace?: () => void): Promise<ClaimResult> {
  const { rows } = await db.query<Row>(CLAIM_OR_READ, [
    input.key,
    input.tenant,
    input.subject,
    input.tool,
    input.argumentsSha256,
    input.at,
  ]);
  const row = rows[0];
  if (row?.claimed) return { claimed: true };
  if (row)
    return {
      claimed: false,
      status: row.status ?? "",
      response: row.response,
      argumentsSha256: row.arguments_sha256 ?? null,
    };
  onRace?.();
  const again = await db.query<{ status: string; response: unknown; arguments_sha256: string | null }>(READ, [
    input.key,
  ]);
  const prior = again.rows[0];
  // Deleted between the two statements (an operator released it): the caller may try again.
  if (!prior) return claimOrRead(db, input, onRace);
  return {
    claimed: false,
    status: prior.status,
    response: prior.response,
    argumentsSha256: prior.arguments_sha256 ?? null,
  };
}

/** Stores the outcome; only a claim still in flight is completed (an operator may have acted). */
export async function complete(db: Queryable, key: string, response: unknown, at: Date): Promise<boolean> {
  const result = await db.query(
    `UPDATE idempotency SET status = 'completed', response = $2::jsonb, updated_at = $3
     WHERE key = $1 AND status = 'in_progress'`,
    [key, JSON.stringify(response ?? null), at],
  );
  return result.rowCount === 1;
}
