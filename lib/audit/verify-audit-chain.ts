import "server-only";
import pg from "pg";
import { auditChainHash, GENESIS_HASH, type AuditChainRowText } from "@/lib/audit/audit-chain-content";
import { UserError } from "@/lib/errors/user-error";

export const DEFAULT_VERIFY_BATCH = 10_000;

/** content: the row is not what was hashed; link: its predecessor is not the row it was chained to. */
export type ChainProblem = "content" | "link";

export type ChainVerification = {
  ok: boolean;
  /** Rows checked, the first bad one included. */
  rows: number;
  fromId: string | null;
  /** The last row that matched, in chain order; null when none did or the chain is empty. */
  throughId: string | null;
  /** That row's hash: keep it outside the database to detect a chain rewritten from the start. */
  headHash: string | null;
  firstBad: { id: string; chainSeq: string; problem: ChainProblem; detail: string } | null;
  startedAt: Date;
  finishedAt: Date;
  seconds: number;
};

type Progress = { done: number; total: number };

// Every column as the server's text: JSON exactly as jsonb::text, `at` in the server's ISO output.
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

type RawRow = {
  chain_seq: string;
  id: string;
  at: string;
  actor: string;
  actor_role: string;
  action: string;
  key: string | null;
  tenant: string | null;
  before: string | null;
  after: string | null;
  reason: string | null;
  evidence: string | null;
  prev_hash: string;
  hash: string;
};

/**
 * Walks the audit chain in keyset batches of chain_seq and recomputes every row's hash in Node
 * (docs/audit-chain.md): no SQL function is trusted, so an owner who replaced the trigger's cannot
 * make a changed row pass. Stops at the first row whose content or link does not match.
 */
export async function verifyAuditChain(
  url: string,
  options: {
    fromId?: string;
    batchSize?: number;
    onProgress?: (p: Progress) => void;
    /** Its connection's name in pg_stat_activity (the bench watches its backend by it). */
    applicationName?: string;
    beforeClose?: () => Promise<void>;
  } = {},
): Promise<ChainVerification> {
  const startedAt = new Date();
  const clock = performance.now();
  const batchSize = options.batchSize ?? DEFAULT_VERIFY_BATCH;
  const client = new pg.Client({
    connectionString: url,
    application_name: options.applicationName ?? "idem-audit-verify",
  });
  await client.connect();
  try {
    let { afterSeq, expectedPrev } = await startingPoint(client, options.fromId);
    const total = await client
      .query<{ last: string | null }>({ text: "SELECT max(chain_seq) AS last FROM audit_log", types: RAW_TEXT })
      .then((r) => Number(r.rows[0]?.last ?? 0) - Number(afterSeq));
    let rows = 0;
    let through: { id: string; hash: string } | null = null;
    let firstBad: ChainVerification["firstBad"] = null;
    walk: for (;;) {
      const batch = await client.query<RawRow>({
        text: `SELECT chain_seq, id, at, actor, actor_role, action, key, tenant, before, after, reason, evidence, prev_hash, hash
               FROM audit_log WHERE chain_seq > $1 ORDER BY chain_seq LIMIT $2`,
        values: [afterSeq, batchSize],
        types: RAW_TEXT,
      });
      for (const row of batch.rows) {
        rows += 1;
        firstBad = checkRow(row, expectedPrev, BigInt(afterSeq) + 1n);
        if (firstBad) break walk;
        through = { id: row.id, hash: row.hash };
        expectedPrev = row.hash;
        afterSeq = row.chain_seq;
      }
      options.onProgress?.({ done: rows, total: Math.max(total, rows) });
      if (batch.rows.length < batchSize) break;
    }
    const seconds = (performance.now() - clock) / 1000;
    return {
      ok: firstBad === null,
      rows,
      fromId: options.fromId ?? null,
      throughId: through?.id ?? null,
      headHash: through?.hash ?? null,
      firstBad,
      startedAt,
      finishedAt: new Date(),
      seconds,
    };
  } finally {
    await options.beforeClose?.();
    await client.end();
  }
}

/** The keyset position before the first row to check, and the hash that row must link to (null: none can). */
async function startingPoint(
  client: pg.Client,
  fromId: string | undefined,
): Promise<{ afterSeq: string; expectedPrev: string | null }> {
  if (fromId === undefined) return { afterSeq: "0", expectedPrev: GENESIS_HASH };
  const { rows } = await client.query<{ chain_seq: string; prev_hash: string | null }>({
    text: `SELECT a.chain_seq, p.hash AS prev_hash FROM audit_log a
           LEFT JOIN audit_log p ON p.chain_seq = a.chain_seq - 1 WHERE a.id = $1`,
    values: [fromId],
    types: RAW_TEXT,
  });
  const start = rows[0];
  if (!start) throw new UserError(`--from: no audit row has id ${fromId}`, 1);
  const afterSeq = (BigInt(start.chain_seq) - 1n).toString();
  return { afterSeq, expectedPrev: afterSeq === "0" ? GENESIS_HASH : start.prev_hash };
}

function checkRow(row: RawRow, expectedPrev: string | null, expectedSeq: bigint): ChainVerification["firstBad"] {
  const text: AuditChainRowText = {
    chainSeq: row.chain_seq,
    id: row.id,
    at: row.at,
    actor: row.actor,
    actorRole: row.actor_role,
    action: row.action,
    key: row.key,
    tenant: row.tenant,
    before: row.before,
    after: row.after,
    reason: row.reason,
    evidence: row.evidence,
    prevHash: row.prev_hash,
  };
  const bad = (problem: ChainProblem, detail: string) => ({ id: row.id, chainSeq: row.chain_seq, problem, detail });
  if (auditChainHash(text) !== row.hash)
    return bad("content", "its columns no longer hash to its stored hash: the row was changed");
  if (row.prev_hash !== expectedPrev || BigInt(row.chain_seq) !== expectedSeq)
    return bad(
      "link",
      `its prev_hash ${row.prev_hash.slice(0, 12)}… (place ${row.chain_seq}) is not the hash of the row before it, ${expectedPrev === null ? "missing" : `${expectedPrev.slice(0, 12)}…`} (place ${expectedSeq - 1n}): a row before it was removed or slipped in`,
    );
  return null;
}
