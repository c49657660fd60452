import "server-only";
import { startJobRun, type UnfinishedRun } from "@/lib/audit/job-runs";
import { actorLabel } from "@/lib/audit/write-audit";
import { Prisma } from "@/generated/prisma/client";
import pLimit from "p-limit";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { refOf } from "idem-guard";
import { stuckCondition } from "@/lib/records/list-records";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { askProcessor } from "./ask-processor";
import { DEFAULT_PROCESSOR_TIMEOUT_MS, type ProcessorCheck, type ProcessorOutcome } from "./processor-check-types";
import { applyResolution, decideResolution } from "./resolution";
import { reconcileTotals, type ReconcileAction, type ReconcileTotals } from "./reconcile-totals";
import { ROW_VERSION_SQL } from "@/lib/records/visible-records";

/**
 * The reconciler's identity in the audit log. writeAudit labels system actors `system:<name>`,
 * so its rows say `system:reconciler` — one spelling for every job the console runs itself
 * (the CLI's rows say `system:cli (<user>)`). An operator, never an admin: it may complete and
 * release on evidence, never force.
 */
export const RECONCILER_ACTOR: Actor = {
  kind: "system",
  id: "reconciler",
  name: "reconciler",
  displayName: "Reconciler",
  role: "operator",
  tenants: [],
};

export const DEFAULT_RECONCILE_LIMIT = 1000;
export const DEFAULT_RECONCILE_CONCURRENCY = 4;
/** Time the transaction may take beyond the processor's own timeout: the lock, the UPDATE, the audit row. */
const TRANSACTION_MARGIN_MS = 10_000;

export type ReconcileRowResult = {
  key: string;
  ref: string;
  tenant: string;
  tool: string | null;
  /** How long the claim had been in_progress when the reconciler took it. */
  ageMs: number;
  outcome: ProcessorOutcome;
  /** What happened to the row (in a dry run: what would have happened). */
  action: ReconcileAction;
  /** Why, in one sentence: the processor's answer, or the error that kept the row as it was. */
  reason: string;
  /** The audit row that records the change (absent when nothing changed). */
  auditId?: string;
  /** How long asking the processor took. */
  checkMs: number;
};

export type ReconcileOptions = {
  /** Claims older than this; null: older than each tool's stuckAfter threshold. */
  olderThanMs: number | null;
  tool: string | null;
  tenant: string | null;
  limit: number;
  concurrency: number;
  dryRun: boolean;
  /** Whose name goes into the audit rows, and whose tenants bound the candidates. Default RECONCILER_ACTOR. */
  actor?: Actor;
  now?: Date;
  /** Called after each row, e.g. to draw a progress bar. */
  onRow?: (row: ReconcileRowResult, done: number, total: number) => void;
  /** Called once the candidates are known, before any processor is asked. */
  onCandidates?: (total: number) => void;
  /** Called once at the start with the earlier run that died (its heartbeat stopped), if one did: the CLI names it. */
  onPreviousRun?: (run: UnfinishedRun) => void;
};

export type ReconcileResult = {
  dryRun: boolean;
  startedAt: string;
  durationMs: number;
  criteria: {
    olderThanMs: number | null;
    olderThan: string;
    tool: string | null;
    tenant: string | null;
    limit: number;
    concurrency: number;
  };
  /** in_progress rows that matched the criteria when the run started. */
  candidates: number;
  rows: ReconcileRowResult[];
  totals: ReconcileTotals;
  /** Rows still in_progress after this run because of it: left (unknown outcome, errors) or in conflict. */
  unresolved: number;
};

/** reconcileNextRow's answer when the row it locked was already handled by this run. */
const ALREADY_TAKEN = Symbol("already taken");

type CandidateRow = { key: string; tenant: string; tool: string | null; created_at: Date };
type LockedRow = CandidateRow & { version: string | null };

/**
 * Sweeps stuck claims against their processors (docs/architecture.md#states: the
 * reconciliation job). Candidates are chosen first; then, `concurrency` at a time, each turn: in ONE transaction,
 * lock the next candidate still in_progress with `FOR UPDATE SKIP LOCKED`, ask the processor,
 * and complete (taken, with the receipt) or release (not taken) it with its audit row, or leave
 * it (unknown). Holding the row lock across the processor call is the point: a second
 * reconciler skips a row the first is asking about instead of asking (and acting) twice, and a
 * writer's own completion waits for the lock and then wins or loses the compare-and-set cleanly.
 *
 * SKIP LOCKED alone cannot promise that no row is missed: a worker that finds every remaining
 * key held lets go of them, and a hold can be short (a worker of another run that locked the
 * row only to find it had already been handled). So a second round takes the candidates this
 * run did not act on and that are still in_progress, and waits (bounded) for each one's lock:
 * either the holder resolved it meanwhile and there is nothing to do, or it let go without
 * resolving it and this run asks. Every candidate ends acted on, resolved by someone else, or
 * reported as held.
 *
 * A dry run asks the processor about every candidate and reports what it would do, taking no
 * locks, changing nothing and writing no audit rows.
 *
 * The database client needs a pool of at least `concurrency` connections: each worker holds
 * one for the length of a processor call.
 */
export async function reconcile(db: Db, config: IdemConfig, options: ReconcileOptions): Promise<ReconcileResult> {
  const actor = options.actor ?? RECONCILER_ACTOR;
  const now = options.now ?? new Date();
  const startedAt = new Date();
  const started = performance.now();
  // Recorded as it starts and beating while it works: a run killed mid-way reads "did not finish".
  const job = await startJobRun(db, { job: "reconcile", actor: actorLabel(actor), dryRun: options.dryRun, startedAt });
  if (job.previous) options.onPreviousRun?.(job.previous);
  let tally = () => ({});
  try {
    const result = await reconcileAll();
    await job.finish(tally());
    return result;
  } catch (error) {
    await job.fail(error, tally());
    throw error;
  }

  async function reconcileAll(): Promise<ReconcileResult> {
    const candidates = await selectCandidates(db, config, actor, options, now);
    options.onCandidates?.(candidates.length);

    // Keys no worker of this run has taken yet. A key leaves the set while its row lock is held,
    // so a worker whose query started earlier skips it (SKIP LOCKED) and one starting later never
    // names it: within one run, no row is asked about twice.
    const pending = new Set(candidates.map((c) => c.key));
    const byKey = new Map(candidates.map((c) => [c.key, c]));
    const rows: ReconcileRowResult[] = [];
    const actedOn = new Set<string>();
    let errors = 0;
    const sofar = { completed: 0, released: 0, leftUnknown: 0 };
    tally = () => ({ candidates: candidates.length, ...sofar });
    const record = (row: ReconcileRowResult) => {
      actedOn.add(row.key);
      rows.push(row);
      if (row.action === "completed" || row.action === "released") sofar[row.action] += 1;
      else if (row.action === "left" || row.action === "conflict") sofar.leftUnknown += 1;
      job.progress(tally());
      options.onRow?.(row, rows.length, candidates.length);
    };

    // One turn per candidate, `workers` at a time: a turn acts on whichever pending row comes
    // next (or finds none left), so as many turns as candidates are always enough.
    const turn = async () => {
      if (options.dryRun) {
        const next = takeNext(pending, byKey);
        if (next) record(await planRow(config, actor, next, now));
        return;
      }
      for (;;) {
        let taken: LockedRow | undefined;
        try {
          const result = await reconcileNextRow(db, config, actor, pending, now, (row) => (taken = row));
          if (result === ALREADY_TAKEN) continue;
          if (result !== null) record(result);
          return;
        } catch (error) {
          // The transaction failed (its timeout, a lost connection): it rolled back, so the row is
          // as it was. Report it and go on; a database that is gone fails the next row too.
          errors += 1;
          if (!taken) throw error;
          record({
            ...describeRow(taken, now),
            outcome: "unknown",
            action: "left",
            reason: `not resolved: ${errorMessage(error)}`,
            checkMs: 0,
          });
          return;
        }
      }
    };
    const workers = Math.max(1, Math.min(options.concurrency, candidates.length || 1));
    const roundOne = pLimit(workers);
    await roundOne.map(candidates, turn).catch((error: unknown) => {
      roundOne.clearQueue();
      throw error;
    });

    if (!options.dryRun) {
      const stragglers = await stillInProgress(
        db,
        candidates.filter((c) => !actedOn.has(c.key)).map((c) => c.key),
      );
      const straggler = async (key: string) => {
        let taken: LockedRow | undefined;
        try {
          const result = await reconcileHeldRow(db, config, actor, key, now, (row) => (taken = row));
          if (result !== null) record(result);
        } catch (error) {
          errors += 1;
          const candidate = byKey.get(key);
          const row = taken ?? candidate;
          if (!row) throw error;
          const reason = taken
            ? `not resolved: ${errorMessage(error)}`
            : `held by another session throughout; not resolved: ${errorMessage(error)}`;
          record({ ...describeRow(row, now), outcome: "unknown", action: "left", reason, checkMs: 0 });
        }
      };
      const roundTwo = pLimit(workers);
      await roundTwo.map(stragglers, straggler).catch((error: unknown) => {
        roundTwo.clearQueue();
        throw error;
      });
    }

    // Workers finish in completion order; report oldest claim first, as they were selected.
    const order = new Map(candidates.map((c, i) => [c.key, i]));
    rows.sort((a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0));
    const { totals, unresolved } = reconcileTotals(rows, { skipped: candidates.length - rows.length, errors });
    const result: ReconcileResult = {
      dryRun: options.dryRun,
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      criteria: {
        olderThanMs: options.olderThanMs,
        olderThan: options.olderThanMs === null ? "each tool's stuckAfter" : `${options.olderThanMs} ms`,
        tool: options.tool,
        tenant: options.tenant,
        limit: options.limit,
        concurrency: options.concurrency,
      },
      candidates: candidates.length,
      rows,
      totals,
      unresolved,
    };
    tally = () => ({
      candidates: candidates.length,
      completed: totals.completed,
      released: totals.released,
      leftUnknown: result.unresolved,
    });
    return result;
  }
}

/** The oldest claims matching the criteria, limited to the actor's tenants. Uses the partial `status <> 'completed'` index. */
async function selectCandidates(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  options: ReconcileOptions,
  now: Date,
): Promise<CandidateRow[]> {
  const conditions: Prisma.Sql[] = [
    options.olderThanMs === null
      ? stuckCondition(config, now)
      : Prisma.sql`status = 'in_progress' AND created_at < ${new Date(now.getTime() - options.olderThanMs)}::timestamptz`,
  ];
  conditions.push(...actorTenantScope(actor).conditions());
  if (options.tenant !== null) conditions.push(Prisma.sql`tenant = ${options.tenant}`);
  if (options.tool !== null) conditions.push(Prisma.sql`tool = ${options.tool}`);
  return db.$queryRaw<CandidateRow[]>`
    SELECT key, tenant, tool, created_at FROM idempotency
    WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY created_at, key LIMIT ${options.limit}`;
}

/**
 * One row, one transaction: lock the oldest candidate still in_progress that nobody holds, ask
 * its processor while holding the lock, apply what the answer allows, commit. Null when no
 * candidate is left for this worker.
 */
async function reconcileNextRow(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  pending: Set<string>,
  now: Date,
  onTaken: (row: LockedRow) => void,
): Promise<ReconcileRowResult | typeof ALREADY_TAKEN | null> {
  if (pending.size === 0) return null;
  const timeoutMs = maxProcessorTimeout(config) + TRANSACTION_MARGIN_MS;
  return db.$transaction(
    async (tx) => {
      // Read the pending keys only now: this transaction may have waited for a pooled connection
      // while other workers took (and finished with) some of them.
      const keys = [...pending];
      if (keys.length === 0) return null;
      const [row] = await tx.$queryRawUnsafe<LockedRow[]>(
        `SELECT key, tenant, tool, created_at, ${ROW_VERSION_SQL} AS version FROM idempotency
         WHERE key = ANY($1::text[]) AND status = 'in_progress'
         ORDER BY created_at, key LIMIT 1 FOR UPDATE SKIP LOCKED`,
        keys,
      );
      if (!row) {
        // Every key this worker named is resolved or held by someone else; keys another worker
        // of this run took meanwhile are no longer pending, so looking again cannot loop forever.
        for (const key of keys) pending.delete(key);
        return null;
      }
      // Another worker of this run took this row and committed between our reading `pending` and
      // our query: it is done with it (left it in_progress). Let go of the lock and pick again.
      if (!pending.delete(row.key)) return ALREADY_TAKEN;
      onTaken(row);
      return resolveLockedRow(tx, config, actor, row, now);
    },
    // maxWait: a worker may wait for a pooled connection while the others ask their processors.
    { timeout: timeoutMs, maxWait: timeoutMs },
  );
}

/**
 * The second round, for one candidate still in_progress that round one never got: wait for its
 * lock (at most as long as another reconciler may hold it for one processor call), then act on
 * it if it is still in_progress. Null when someone else resolved it meanwhile.
 */
async function reconcileHeldRow(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  key: string,
  now: Date,
  onTaken: (row: LockedRow) => void,
): Promise<ReconcileRowResult | null> {
  const lockWaitMs = maxProcessorTimeout(config) + 2_000;
  const timeoutMs = lockWaitMs + maxProcessorTimeout(config) + TRANSACTION_MARGIN_MS;
  return db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${Math.round(lockWaitMs)}`);
      const [row] = await tx.$queryRawUnsafe<LockedRow[]>(
        `SELECT key, tenant, tool, created_at, ${ROW_VERSION_SQL} AS version FROM idempotency
         WHERE key = $1 AND status = 'in_progress' FOR UPDATE`,
        key,
      );
      if (!row) return null;
      onTaken(row);
      return resolveLockedRow(tx, config, actor, row, now);
    },
    { timeout: timeoutMs, maxWait: timeoutMs },
  );
}

/** Ask the processor about a row this transaction holds, and apply what the answer allows. */
async function resolveLockedRow(
  tx: Prisma.TransactionClient,
  config: IdemConfig,
  actor: Actor,
  row: LockedRow,
  now: Date,
): Promise<ReconcileRowResult> {
  const check = await boundedCheck(config, row);
  const base = { ...describeRow(row, now), outcome: check.outcome, checkMs: check.evidence.ms };
  if (check.outcome === "unknown") return { ...base, action: "left", reason: check.reason };
  const decision = decideResolution(actor, check.outcome === "taken" ? "complete" : "release", check, false);
  if (!decision.ok) return { ...base, action: "left", reason: decision.message };
  const applied = await applyResolution(tx, actor, {
    key: row.key,
    expectedVersion: row.version,
    decision,
    reason: `reconciler: ${check.reason}`,
    check,
  });
  if (!applied.ok) {
    return {
      ...base,
      action: "conflict",
      reason: `changed by someone else meanwhile (now ${applied.current?.status ?? "deleted"}); nothing was overwritten`,
    };
  }
  return {
    ...base,
    action: decision.action === "complete" ? "completed" : "released",
    reason: check.reason,
    auditId: applied.auditId.toString(),
  };
}

/** Which of these keys are still in_progress (no lock taken: round two locks them one by one). */
async function stillInProgress(db: Db, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db.$queryRaw<{ key: string }[]>`
    SELECT key FROM idempotency WHERE key = ANY(${keys}::text[]) AND status = 'in_progress' ORDER BY created_at, key`;
  return rows.map((r) => r.key);
}

/** Dry run: ask and decide, as the real run would, without a lock or a write. */
async function planRow(config: IdemConfig, actor: Actor, row: CandidateRow, now: Date): Promise<ReconcileRowResult> {
  const check = await boundedCheck(config, row);
  const base = { ...describeRow(row, now), outcome: check.outcome, checkMs: check.evidence.ms };
  if (check.outcome === "unknown") return { ...base, action: "left", reason: check.reason };
  const decision = decideResolution(actor, check.outcome === "taken" ? "complete" : "release", check, false);
  if (!decision.ok) return { ...base, action: "left", reason: decision.message };
  return { ...base, action: decision.action === "complete" ? "completed" : "released", reason: check.reason };
}

function takeNext(pending: Set<string>, byKey: Map<string, CandidateRow>): CandidateRow | undefined {
  for (const key of pending) {
    pending.delete(key);
    return byKey.get(key);
  }
  return undefined;
}

function describeRow(row: CandidateRow, now: Date) {
  return {
    key: row.key,
    ref: refOf(row.key),
    tenant: row.tenant,
    tool: row.tool,
    ageMs: Math.max(0, now.getTime() - row.created_at.getTime()),
  };
}

function processorTimeout(config: IdemConfig, tool: string | null): number {
  return (tool === null ? undefined : config.tools[tool]?.processor?.timeout) ?? DEFAULT_PROCESSOR_TIMEOUT_MS;
}

function maxProcessorTimeout(config: IdemConfig): number {
  return Math.max(
    DEFAULT_PROCESSOR_TIMEOUT_MS,
    ...Object.keys(config.tools).map((tool) => processorTimeout(config, tool)),
  );
}

/**
 * The adapters bound themselves by the tool's timeout; this bounds them once more (plus a
 * second) so an adapter that hangs anyway cannot hold a row lock until the transaction dies.
 */
async function boundedCheck(config: IdemConfig, row: { key: string; tool: string | null }): Promise<ProcessorCheck> {
  const limitMs = processorTimeout(config, row.tool) + 1_000;
  let timer: NodeJS.Timeout | undefined;
  const overdue = new Promise<ProcessorCheck>((resolve) => {
    timer = setTimeout(() => {
      const reason = `the processor check did not finish within ${limitMs} ms`;
      resolve({
        outcome: "unknown",
        reason,
        evidence: { adapter: "none", request: { tool: row.tool }, status: null, error: reason, ms: limitMs },
        checkedAt: new Date().toISOString(),
      });
    }, limitMs);
  });
  try {
    return await Promise.race([askProcessor(config, row), overdue]);
  } finally {
    clearTimeout(timer);
  }
}

function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(-1)[0] ?? text
  );
}
