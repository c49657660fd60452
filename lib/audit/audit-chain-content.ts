import { createHash } from "node:crypto";

/**
 * One audit row as PostgreSQL writes its columns as text (`jsonb::text` for JSON, the server's
 * timestamptz text for `at`), NULL as null. The verifier rebuilds the hash from these alone.
 */
export type AuditChainRowText = {
  chainSeq: string;
  id: string;
  at: string;
  actor: string;
  actorRole: string;
  action: string;
  key: string | null;
  tenant: string | null;
  before: string | null;
  after: string | null;
  reason: string | null;
  evidence: string | null;
  prevHash: string;
};

/** The first row's `prev_hash`. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The canonical content of docs/audit-chain.md#canonical-content: every column in a fixed order as
 * `<UTF-8 byte length>:<text>`, NULL as `-`, `at` as integer microseconds since the epoch. The
 * migration's `audit_log_chain_content` writes the same bytes inside the database.
 */
export function auditChainContent(row: AuditChainRowText): string {
  const fields = [
    row.chainSeq,
    row.id,
    epochMicroseconds(row.at).toString(),
    row.actor,
    row.actorRole,
    row.action,
    row.key,
    row.tenant,
    row.before,
    row.after,
    row.reason,
    row.evidence,
    row.prevHash,
  ];
  return fields.map((v) => (v === null ? "-" : `${Buffer.byteLength(v, "utf8")}:${v}`)).join("");
}

export function auditChainHash(row: AuditChainRowText): string {
  return createHash("sha256").update(auditChainContent(row), "utf8").digest("hex");
}

// PostgreSQL's ISO output (DateStyle ISO, the default): `2026-12-04 12:36:53.123456+00`, `…+05:30`.
const ISO_TIMESTAMPTZ =
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;

/**
 * A timestamptz's text, in whatever TimeZone the session has, as microseconds since the epoch: the
 * instant itself, so the hash never depends on the reader's or the writer's time zone.
 */
export function epochMicroseconds(text: string): bigint {
  const m = ISO_TIMESTAMPTZ.exec(text);
  if (!m) throw new Error(`not a timestamptz in PostgreSQL's ISO DateStyle: ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, fraction = "", sign, oh, om = "0", os = "0"] = m;
  const seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  const offset = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * (sign === "-" ? -1 : 1);
  return BigInt(seconds - offset) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
}
