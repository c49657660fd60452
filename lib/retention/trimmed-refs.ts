import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { TenantScope } from "@/lib/tenancy/tenant-scope";

/**
 * An exact, compact record of the refs each retention batch deleted (table trimmed_ref_chunk).
 *
 * Why this shape: one row per trimmed ref would cost ~65 bytes (heap tuple and index entry)
 * against the idempotency row's ~400, and 30 days of them would outgrow the 48 h table; a
 * Bloom filter (~1.2 bytes at 1 % false positives) could only ever say "probably trimmed". Here
 * a batch's refs are sorted per tenant and packed 6 bytes each into chunks split by their top
 * bits, about 64+ refs to a chunk: ~7 bytes per trimmed row, exact, one INSERT per batch, and
 * a lookup probes at most BUCKET_BITS_MAX + 1 index entries per ref and reads one small chunk per
 * batch that trimmed that bucket of its tenant.
 */

/** Refs are 48-bit (12 hex characters). */
const REF_BITS = 48;
const REF_BYTES = 6;
/** A chunk splits no finer than 256 buckets. */
const BUCKET_BITS_MAX = 8;
/** Aim for at least this many refs per chunk, so the row's ~45 bytes of overhead stay small per ref. */
const REFS_PER_CHUNK = 64;
/** Chunks older than this are pruned: past it a ref's fate is unknown, and lookups say so. */
export const TRIMMED_REF_HORIZON_DAYS = 30;

const HEX_REF = /^[0-9a-f]{12}/;

export type TrimmedRefChunk = { tenant: string; bucketBits: number; bucket: number; refsHex: string };

/** The chunk a ref falls in at a given split: the top `bits` bits of its 48. */
function bucketOf(ref: number, bits: number): number {
  return Math.floor(ref / 2 ** (REF_BITS - bits));
}

/** How finely to split `count` refs: enough buckets that each holds about REFS_PER_CHUNK. */
export function bucketBitsFor(count: number): number {
  if (count < 2 * REFS_PER_CHUNK) return 0;
  return Math.min(BUCKET_BITS_MAX, Math.floor(Math.log2(count / REFS_PER_CHUNK)));
}

/**
 * The chunks of one batch's deleted rows: per tenant, the distinct hex refs sorted and packed.
 * Keys whose first 12 characters are not lowercase hex have no ref a lookup could ask about.
 */
export function packTrimmedRefs(rows: readonly { key: string; tenant: string }[]): TrimmedRefChunk[] {
  const byTenant = new Map<string, Set<string>>();
  for (const row of rows) {
    const ref = HEX_REF.exec(row.key)?.[0];
    if (!ref) continue;
    let refs = byTenant.get(row.tenant);
    if (!refs) byTenant.set(row.tenant, (refs = new Set()));
    refs.add(ref);
  }
  const chunks: TrimmedRefChunk[] = [];
  for (const [tenant, refs] of byTenant) {
    // Equal-length lowercase hex sorts as its numbers do.
    const sorted = [...refs].sort();
    const bits = bucketBitsFor(sorted.length);
    let start = 0;
    while (start < sorted.length) {
      const bucket = bucketOf(parseInt(sorted[start]!, 16), bits);
      let end = start + 1;
      while (end < sorted.length && bucketOf(parseInt(sorted[end]!, 16), bits) === bucket) end += 1;
      chunks.push({ tenant, bucketBits: bits, bucket, refsHex: sorted.slice(start, end).join("") });
      start = end;
    }
  }
  return chunks;
}

/** Writes one batch's chunks, in the batch's transaction, under its audit row. */
export async function recordTrimmedRefs(
  tx: Prisma.TransactionClient,
  auditId: bigint,
  rows: readonly { key: string; tenant: string }[],
): Promise<void> {
  const chunks = packTrimmedRefs(rows);
  if (chunks.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO trimmed_ref_chunk (audit_id, tenant, bucket_bits, bucket, refs)
    SELECT ${auditId}::bigint, c.tenant, c.bits, c.bucket, decode(c.refs, 'hex')
      FROM unnest(${chunks.map((c) => c.tenant)}::text[], ${chunks.map((c) => c.bucketBits)}::int2[], ${chunks.map((c) => c.bucket)}::int2[], ${chunks.map((c) => c.refsHex)}::text[])
           AS c(tenant, bits, bucket, refs)`;
}

/** Drops chunks past the horizon (a range on trimmed_at's index). */
export async function pruneTrimmedRefs(db: Db | Prisma.TransactionClient): Promise<number> {
  return db.$executeRaw`DELETE FROM trimmed_ref_chunk WHERE trimmed_at < now() - make_interval(days => ${TRIMMED_REF_HORIZON_DAYS}::int)`;
}

export type TrimmedRefMatch = { ref: string; tenant: string; auditId: bigint; trimmedAt: Date };

/**
 * Which of these refs a retention batch deleted, within the tenant scope:
 * for each ref, one index probe per split the chunks may use, then a binary search of each
 * chunk found. Exact: a match is a deleted row's ref, never a hash collision.
 */
export async function findTrimmedRefs(db: Db, scope: TenantScope, refs: readonly string[]): Promise<TrimmedRefMatch[]> {
  const wanted = [...new Set(refs.map((r) => r.toLowerCase()).filter((r) => /^[0-9a-f]{12}$/.test(r)))];
  if (wanted.length === 0) return [];
  const probes = new Map<string, { bits: number; bucket: number }>();
  for (const ref of wanted) {
    for (let bits = 0; bits <= BUCKET_BITS_MAX; bits++) {
      const bucket = bucketOf(parseInt(ref, 16), bits);
      probes.set(`${bits}:${bucket}`, { bits, bucket });
    }
  }
  const list = [...probes.values()];
  const chunks = await db.$queryRaw<
    { audit_id: bigint; tenant: string; bucket_bits: number; bucket: number; refs: Uint8Array; trimmed_at: Date }[]
  >`
    SELECT c.audit_id, c.tenant, c.bucket_bits, c.bucket, c.refs, c.trimmed_at
      FROM unnest(${list.map((p) => p.bits)}::int2[], ${list.map((p) => p.bucket)}::int2[]) AS p(bits, bucket)
      JOIN trimmed_ref_chunk c ON c.bucket_bits = p.bits AND c.bucket = p.bucket
     ${scope.whereClause(Prisma.sql`c.tenant`)}
     ORDER BY c.trimmed_at DESC, c.id DESC`;
  const matches: TrimmedRefMatch[] = [];
  for (const chunk of chunks) {
    const packed = Buffer.from(chunk.refs);
    for (const ref of wanted) {
      if (bucketOf(parseInt(ref, 16), chunk.bucket_bits) !== chunk.bucket) continue;
      if (containsRef(packed, Buffer.from(ref, "hex")))
        matches.push({ ref, tenant: chunk.tenant, auditId: chunk.audit_id, trimmedAt: chunk.trimmed_at });
    }
  }
  return matches;
}

/** Binary search of sorted 6-byte refs. */
function containsRef(packed: Buffer, ref: Buffer): boolean {
  let lo = 0;
  let hi = packed.length / REF_BYTES - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const order = packed.compare(ref, 0, REF_BYTES, mid * REF_BYTES, (mid + 1) * REF_BYTES);
    if (order === 0) return true;
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
