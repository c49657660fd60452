import "server-only";
import { startJobRun, type UnfinishedRun } from "@/lib/audit/job-runs";
import { randomUUID } from "node:crypto";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import { actorLabel, writeAudit } from "@/lib/audit/write-audit";
import { formatDuration } from "@/lib/config/duration";
import type { Db } from "@/lib/db/prisma";
import { exactTimeSql } from "@/lib/format/exact-time";
import { refOf } from "idem-guard";
import { drainBatches, type BatchStep } from "./drain-batches";
import { pruneTrimmedRefs, recordTrimmedRefs } from "./trimmed-refs";

export const DEFAULT_TRIM_BATCH = 10_000;
/**
 * Unresolved claims are deleted in smaller batches than the rest: each batch's audit row lists
 * every deleted claim (they are claims someone may still need), and that list must stay readable.
 */
const UNRESOLVED_BATCH_MAX = 1_000;
/** How many of the oldest kept claims the report names (the count covers all of them). */
const KEPT_SAMPLE = 10;
/** A batch deletes up to `batch` rows and their index entries; generous, but bounded. */
const BATCH_TRANSACTION_TIMEOUT_MS = 120_000;

export type TrimPhase = "records" | "unresolved" | "events";

export type TrimOptions = {
  olderThanMs: number;
  batchSize: number;
  dryRun: boolean;
  /** Also delete in_progress rows older than the cutoff (each one listed in its batch's audit row). */
  includeUnresolved: boolean;
  /** Named in the audit rows. */
  actor: Actor;
  now?: Date;
  /** Called with each phase's planned total, then after each batch. */
  onProgress?: (progress: { phase: TrimPhase; done: number; total: number }) => void;
  /** Called once at the start with the earlier run that died (its heartbeat stopped), if one did: the CLI names it. */
  onPreviousRun?: (run: UnfinishedRun) => void;
};

/** An in_progress claim, as the report and the audit row name it. */
export type UnresolvedClaim = {
  key: string;
  ref: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  createdAt: string;
};

export type TrimResult = {
  dryRun: boolean;
  startedAt: string;
  durationMs: number;
  /** Rows (and events) created before this instant are trimmed. */
  cutoff: string;
  olderThanMs: number;
  batchSize: number;
  includeUnresolved: boolean;
  /** idempotency rows that are not in_progress (completed, or any other status a writer wrote). */
  records: { planned: number; deleted: number; deletedByStatus: Record<string, number>; batches: number };
  /** in_progress rows older than the cutoff: kept (and reported) unless includeUnresolved. */
  unresolved: {
    planned: number;
    deleted: number;
    deletedClaims: UnresolvedClaim[];
    batches: number;
    kept: number;
    oldestKept: string | null;
    /** The oldest kept claims, at most KEPT_SAMPLE of them. */
    keptSample: UnresolvedClaim[];
  };
  /** idempotency_event rows older than the cutoff: writer events would otherwise outlive their rows forever. */
  events: { planned: number; deleted: number; batches: number };
  /** One audit row per batch, each in the transaction of the delete it records. */
  auditIds: string[];
  /** Ties the batches' audit rows together (evidence.runId). */
  runId: string;
};

type Position = { at: string; id: string } | null;
type SnapshotRow = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  response: unknown;
  created_at: Date;
  updated_at: Date | null;
};

/**
 * Retention (docs/architecture.md#retention): a batched delete of idempotency rows created before the cutoff —
 * never a partition drop, which would break `ON CONFLICT (key)` — and of writer events older
 * than the cutoff. in_progress rows are claims without an outcome: they are kept and reported
 * unless `includeUnresolved`, and then each deleted one is named in the audit log.
 *
 * Each batch is its own transaction with its own audit row (action retention.trim,
 * retention.trim_unresolved or retention.trim_events): one audit row per run would have to be
 * written after the batches had committed, and a run that dies halfway would leave deletions
 * the audit log does not mention. Per batch, the log says exactly what was deleted, even then.
 * The audit log itself is never trimmed (its trigger forbids it). Each row batch also records
 * its deleted refs, packed (trimmed-refs.ts), so a lookup can name the batch that took a ref.
 *
 * Batches walk forward through (created_at, key) from a position kept in memory, each selecting
 * `ORDER BY created_at, key LIMIT n FOR UPDATE SKIP LOCKED` on the created_at index: a batch
 * never re-reads the dead index entries of the previous ones nor the in_progress rows it keeps,
 * and never waits on a row a reconciler holds (that row is skipped, this run).
 */
export async function trim(db: Db, options: TrimOptions): Promise<TrimResult> {
  // Recorded as it starts and beating while it works: a run killed mid-way reads "did not finish".
  const startedAt = new Date();
  const job = await startJobRun(db, {
    job: "trim",
    actor: actorLabel(options.actor),
    dryRun: options.dryRun,
    startedAt,
  });
  if (job.previous) options.onPreviousRun?.(job.previous);
  const done: Record<TrimPhase, number> = { records: 0, unresolved: 0, events: 0 };
  const deleted = () => ({ deleted: done.records + done.unresolved + done.events });
  const onProgress: TrimOptions["onProgress"] = (progress) => {
    done[progress.phase] = progress.done;
    job.progress(deleted());
    options.onProgress?.(progress);
  };
  try {
    const result = await trimBatches(db, { ...options, onProgress }, startedAt);
    await job.finish({ ...deleted(), kept: result.unresolved.kept });
    return result;
  } catch (error) {
    await job.fail(error, deleted());
    throw error;
  }
}

async function trimBatches(db: Db, options: TrimOptions, startedAt: Date): Promise<TrimResult> {
  const started = performance.now();
  const now = options.now ?? startedAt;
  const cutoff = new Date(now.getTime() - options.olderThanMs);
  const runId = randomUUID();
  const auditIds: string[] = [];
  const audit = { actor: options.actor, runId, cutoff, olderThanMs: options.olderThanMs, auditIds };

  const [plannedRows] = await db.$queryRaw<{ done: bigint; unresolved: bigint }[]>`
    SELECT count(*) FILTER (WHERE status <> 'in_progress') AS done, count(*) FILTER (WHERE status = 'in_progress') AS unresolved
    FROM idempotency WHERE created_at < ${cutoff}::timestamptz`;
  const [plannedEvents] = await db.$queryRaw<
    { n: bigint }[]
  >`SELECT count(*) AS n FROM idempotency_event WHERE at < ${cutoff}::timestamptz`;
  const planned = {
    records: Number(plannedRows?.done ?? 0),
    unresolved: Number(plannedRows?.unresolved ?? 0),
    events: Number(plannedEvents?.n ?? 0),
  };

  const records = { planned: planned.records, deleted: 0, deletedByStatus: {} as Record<string, number>, batches: 0 };
  const unresolved = { planned: planned.unresolved, deleted: 0, deletedClaims: [] as UnresolvedClaim[], batches: 0 };
  const events = { planned: planned.events, deleted: 0, batches: 0 };

  // One phase: its batches, each in its own transaction, drained oldest first with the progress
  // after each; `tally` counts them, `onBatch` keeps what the phase reports beyond the count.
  const drainPhase = async <B extends BatchStep<Position>>(
    phase: TrimPhase,
    tally: { deleted: number; batches: number },
    step: (tx: Prisma.TransactionClient, position: Position) => Promise<B>,
    onBatch: (batch: B) => void = () => {},
  ) => {
    options.onProgress?.({ phase, done: 0, total: planned[phase] });
    await drainBatches<Position, B>(
      null,
      (position: Position) => db.$transaction((tx) => step(tx, position), { timeout: BATCH_TRANSACTION_TIMEOUT_MS }),
      (batch) => {
        tally.batches += 1;
        tally.deleted += batch.count;
        onBatch(batch);
        options.onProgress?.({ phase, done: tally.deleted, total: planned[phase] });
      },
    );
  };

  if (!options.dryRun) {
    await pruneTrimmedRefs(db);
    await drainPhase(
      "records",
      records,
      (tx, position) => deleteRowBatch(tx, audit, "records", position, options.batchSize),
      (batch) => {
        for (const row of batch.deleted)
          records.deletedByStatus[row.status] = (records.deletedByStatus[row.status] ?? 0) + 1;
      },
    );
    if (options.includeUnresolved) {
      const size = Math.min(options.batchSize, UNRESOLVED_BATCH_MAX);
      await drainPhase(
        "unresolved",
        unresolved,
        (tx, position) => deleteRowBatch(tx, audit, "unresolved", position, size),
        (batch) => unresolved.deletedClaims.push(...batch.deleted.map(toClaim)),
      );
    }
    await drainPhase("events", events, (tx, position) => deleteEventBatch(tx, audit, position, options.batchSize));
  }

  // What stays: every in_progress row older than the cutoff (all of them on a dry run or without
  // includeUnresolved; on a real run with it, those a reconciler held or a writer claimed meanwhile).
  const [kept] = await db.$queryRaw<{ n: bigint; oldest: Date | null }[]>`
    SELECT count(*) AS n, min(created_at) AS oldest FROM idempotency WHERE status = 'in_progress' AND created_at < ${cutoff}::timestamptz`;
  const sample = await db.$queryRaw<SnapshotRow[]>`
    SELECT key, tenant, subject, tool, status, NULL AS response, created_at, updated_at FROM idempotency
    WHERE status = 'in_progress' AND created_at < ${cutoff}::timestamptz ORDER BY created_at, key LIMIT ${KEPT_SAMPLE}`;

  return {
    dryRun: options.dryRun,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    cutoff: cutoff.toISOString(),
    olderThanMs: options.olderThanMs,
    batchSize: options.batchSize,
    includeUnresolved: options.includeUnresolved,
    records,
    unresolved: {
      ...unresolved,
      kept: Number(kept?.n ?? 0),
      oldestKept: kept?.oldest?.toISOString() ?? null,
      keptSample: sample.map(toClaim),
    },
    events,
    auditIds,
    runId,
  };
}

type AuditContext = { actor: Actor; runId: string; cutoff: Date; olderThanMs: number; auditIds: string[] };

/**
 * One batch of idempotency rows: lock up to `size` rows after `position` (skipping rows someone
 * holds), delete exactly those, write the batch's audit row. `more` is false once a batch comes
 * back short: past the locked rows, nothing matched any more.
 */
async function deleteRowBatch(
  tx: Prisma.TransactionClient,
  audit: AuditContext,
  kind: "records" | "unresolved",
  position: Position,
  size: number,
): Promise<BatchStep<Position> & { deleted: SnapshotRow[] }> {
  const status = kind === "records" ? Prisma.sql`status <> 'in_progress'` : Prisma.sql`status = 'in_progress'`;
  const after = position
    ? Prisma.sql`AND (created_at, key) > (${position.at}::timestamptz, ${position.id})`
    : Prisma.empty;
  const locked = await tx.$queryRaw<{ key: string; at: string }[]>`
    SELECT key, ${Prisma.raw(exactTimeSql("created_at"))} AS at FROM idempotency
    WHERE created_at < ${audit.cutoff}::timestamptz AND ${status} ${after}
    ORDER BY created_at, key LIMIT ${size}
    FOR UPDATE SKIP LOCKED`;
  const last = locked[locked.length - 1];
  if (!last) return { count: 0, deleted: [], position, more: false };
  // The unresolved snapshot keeps the response too: it is all that remains of the claim.
  const response = kind === "unresolved" ? Prisma.sql`response` : Prisma.sql`NULL AS response`;
  // RETURNING comes in no promised order: the result and the audit snapshot list the batch oldest first.
  const deleted = (
    await tx.$queryRaw<SnapshotRow[]>`
    DELETE FROM idempotency WHERE key = ANY(${locked.map((r) => r.key)}::text[])
    RETURNING key, tenant, subject, tool, status, ${response}, created_at, updated_at`
  ).sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (deleted.length > 0) {
    const byStatus: Record<string, number> = {};
    for (const row of deleted) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    const oldest = deleted.reduce((a, b) => (a.created_at <= b.created_at ? a : b)).created_at;
    const newest = deleted.reduce((a, b) => (a.created_at >= b.created_at ? a : b)).created_at;
    const entry = await writeAudit(tx, audit.actor, {
      action: kind === "records" ? "retention.trim" : "retention.trim_unresolved",
      reason:
        kind === "records"
          ? `retention: ${deleted.length} rows created before ${audit.cutoff.toISOString()} (older than ${formatDuration(audit.olderThanMs)})`
          : `retention (--include-unresolved): ${deleted.length} in_progress claims created before ${audit.cutoff.toISOString()}, outcome never recorded`,
      before:
        kind === "unresolved"
          ? json({
              claims: deleted.map((row) => ({
                ...toClaim(row),
                status: row.status,
                response: row.response ?? null,
                updatedAt: row.updated_at?.toISOString() ?? null,
              })),
            })
          : null,
      evidence: json({
        runId: audit.runId,
        table: "idempotency",
        cutoff: audit.cutoff.toISOString(),
        olderThan: formatDuration(audit.olderThanMs),
        deleted: deleted.length,
        deletedByStatus: byStatus,
        createdAtFrom: oldest.toISOString(),
        createdAtTo: newest.toISOString(),
      }),
    });
    audit.auditIds.push(entry.id.toString());
    // Which refs, exactly, so a lookup of one says "trimmed by this batch" (trimmed-refs.ts).
    await recordTrimmedRefs(tx, entry.id, deleted);
  }
  return { count: deleted.length, deleted, position: { at: last.at, id: last.key }, more: locked.length === size };
}

/** One batch of writer events older than the cutoff, walking (at, id) forward on idempotency_event_at_idx. */
async function deleteEventBatch(
  tx: Prisma.TransactionClient,
  audit: AuditContext,
  position: Position,
  size: number,
): Promise<BatchStep<Position>> {
  const after = position
    ? Prisma.sql`AND (at, id) > (${position.at}::timestamptz, ${position.id}::bigint)`
    : Prisma.empty;
  const chosen = await tx.$queryRaw<{ id: bigint; at: string; kind: string }[]>`
    SELECT id, kind, ${Prisma.raw(exactTimeSql("at"))} AS at FROM idempotency_event
    WHERE at < ${audit.cutoff}::timestamptz ${after}
    ORDER BY at, id LIMIT ${size}`;
  const first = chosen[0];
  const last = chosen[chosen.length - 1];
  if (!first || !last) return { count: 0, position, more: false };
  const deleted =
    await tx.$executeRaw`DELETE FROM idempotency_event WHERE id = ANY(${chosen.map((e) => e.id.toString())}::bigint[])`;
  const byKind: Record<string, number> = {};
  for (const event of chosen) byKind[event.kind] = (byKind[event.kind] ?? 0) + 1;
  const entry = await writeAudit(tx, audit.actor, {
    action: "retention.trim_events",
    reason: `retention: ${deleted} writer events recorded before ${audit.cutoff.toISOString()} (older than ${formatDuration(audit.olderThanMs)})`,
    evidence: json({
      runId: audit.runId,
      table: "idempotency_event",
      cutoff: audit.cutoff.toISOString(),
      deleted,
      deletedByKind: byKind,
      atFrom: first.at,
      atTo: last.at,
    }),
  });
  audit.auditIds.push(entry.id.toString());
  return { count: deleted, position: { at: last.at, id: last.id.toString() }, more: chosen.length === size };
}

function toClaim(row: SnapshotRow): UnresolvedClaim {
  return {
    key: row.key,
    ref: refOf(row.key),
    tenant: row.tenant,
    subject: row.subject,
    tool: row.tool,
    createdAt: row.created_at.toISOString(),
  };
}

function json(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}
