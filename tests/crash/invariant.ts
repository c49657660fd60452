import { expect } from "vitest";
import type { Db } from "@/lib/db/prisma";

/**
 * The one invariant a crash may not break (docs/crash-tests.md): every row that changed has
 * exactly one new audit row naming it, and every new audit row names only changes that happened.
 * A snapshot fingerprints the watched rows and notes the audit log's newest id; the check diffs
 * against it.
 */

/** A table whose rows the check watches: `id` and `fingerprint` are SQL expressions over its columns. */
export type Watched = { table: string; id: string; fingerprint: string };

export const IDEMPOTENCY: Watched = {
  table: "idempotency",
  id: "key",
  fingerprint: "concat_ws('|', status, md5(response::text), updated_at, created_at)",
};
export const IDEMPOTENCY_EVENT: Watched = { table: "idempotency_event", id: "id::text", fingerprint: "kind" };
// last_used_at moves with every authenticated request: it is not a change anyone audits.
export const API_TOKEN: Watched = {
  table: "api_token",
  id: "id",
  fingerprint: "concat_ws('|', name, role, revoked_at)",
};
export const CONSOLE_USER: Watched = {
  table: "console_user",
  id: "id",
  fingerprint: "concat_ws('|', role, tenants::text, password_hash, disabled_at)",
};

export type Snapshot = { auditMaxId: bigint; rows: Map<string, string> };

export async function snapshot(db: Db, watched: readonly Watched[]): Promise<Snapshot> {
  const rows = new Map<string, string>();
  for (const w of watched) {
    const found = await db.$queryRawUnsafe<{ id: string; fp: string }[]>(
      `SELECT ${w.id} AS id, ${w.fingerprint} AS fp FROM ${w.table}`,
    );
    for (const row of found) rows.set(`${w.table}:${row.id}`, row.fp);
  }
  const [max] = await db.$queryRaw<{ id: bigint | null }[]>`SELECT max(id) AS id FROM audit_log`;
  return { auditMaxId: max?.id ?? 0n, rows };
}

export type AuditRow = {
  id: bigint;
  action: string;
  key: string | null;
  before: unknown;
  after: unknown;
  evidence: unknown;
};

/**
 * What an audit row says it changed: watched rows by id ("idempotency:<key>"), or for a batch that
 * names its rows only by number (trim's writer events), a count of a table's rows. A row that
 * records a disclosure (record.reveal) changes nothing: it names what it disclosed.
 */
export type Claim = { ids: string[] } | { table: string; count: number } | { disclosed: string };
export type ClaimsOf = (row: AuditRow, context: { db: Db; before: Snapshot }) => Promise<Claim[]> | Claim[];

/** The default: an audit row names the one idempotency row in its `key`. */
export const claimsByKey: ClaimsOf = (row) => (row.key ? [{ ids: [`idempotency:${row.key}`] }] : []);

export type Diff = { changed: string[]; audit: AuditRow[] };

/** The watched rows that differ from the snapshot (changed, deleted or new) and the audit rows added since. */
export async function diffSince(db: Db, before: Snapshot, watched: readonly Watched[]): Promise<Diff> {
  const now = await snapshot(db, watched);
  const changed = new Set<string>();
  for (const [id, fp] of before.rows) if (now.rows.get(id) !== fp) changed.add(id);
  for (const id of now.rows.keys()) if (!before.rows.has(id)) changed.add(id);
  const audit = await db.$queryRaw<AuditRow[]>`
    SELECT id, action, key, before, after, evidence FROM audit_log WHERE id > ${before.auditMaxId} ORDER BY id`;
  return { changed: [...changed].sort(), audit };
}

/** Fails with every broken part of the invariant, named, when the diff since `before` breaks it. */
export async function expectInvariant(
  db: Db,
  before: Snapshot,
  watched: readonly Watched[],
  claimsOf: ClaimsOf,
  label: string,
): Promise<Diff> {
  const diff = await diffSince(db, before, watched);
  const problems: string[] = [];
  const claimedBy = new Map<string, bigint[]>();
  const counted = new Map<string, number>();
  for (const row of diff.audit) {
    const claims = await claimsOf(row, { db, before });
    if (claims.length === 0) problems.push(`audit ${row.id} (${row.action}) names no change`);
    for (const claim of claims) {
      if ("disclosed" in claim) continue;
      if ("count" in claim) counted.set(claim.table, (counted.get(claim.table) ?? 0) + claim.count);
      else for (const id of claim.ids) claimedBy.set(id, [...(claimedBy.get(id) ?? []), row.id]);
    }
  }
  const changed = new Set(diff.changed);
  for (const [id, rows] of claimedBy) {
    if (!changed.has(id)) problems.push(`audit ${rows.join(", ")} describes ${id}, which did not change`);
    else if (rows.length > 1) problems.push(`${id} has ${rows.length} audit rows (${rows.join(", ")}), not one`);
  }
  const uncounted = new Map<string, number>();
  for (const id of diff.changed) {
    if (claimedBy.has(id)) continue;
    const table = id.slice(0, id.indexOf(":"));
    if (counted.has(table)) uncounted.set(table, (uncounted.get(table) ?? 0) + 1);
    else problems.push(`${id} changed without an audit row`);
  }
  for (const [table, count] of counted) {
    const seen = uncounted.get(table) ?? 0;
    if (seen !== count) problems.push(`audit rows count ${count} changed ${table} rows; ${seen} changed`);
  }
  expect(problems, `${label}: every change has exactly one audit row, every audit row a change`).toEqual([]);
  return diff;
}
