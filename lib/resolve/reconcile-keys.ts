import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import {
  applyBulkResolution,
  BULK_APPLY_MAX_ROWS,
  BULK_CHECK_CONCURRENCY,
  planBulkResolution,
  type BulkRowResult,
  type PlannedRow,
} from "./bulk-plan";
import type { ReconcileResult, ReconcileRowResult } from "./reconcile";
import { reconcileTotals } from "./reconcile-totals";
import type { ResolveAction } from "./resolution";

/**
 * The reconciler's run over named keys (POST /api/v1/reconcile with `filter.keys`), in the
 * reconciler's result shape: a plan, then — unless a dry run — an apply of every row the plan
 * proposes to act on. Unlike the sweep it never acts on a claim that is not stuck.
 */
export async function reconcileKeys(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  keys: string[],
  dryRun: boolean,
): Promise<ReconcileResult> {
  const started = performance.now();
  const startedAt = new Date();
  const plan = await planBulkResolution(db, config, actor, { keys }, startedAt);
  const toApply = plan.rows.filter((row): row is PlannedRow & { proposed: ResolveAction } => row.proposed !== "leave");
  const applied = new Map<string, BulkRowResult>();
  if (!dryRun && toApply.length > 0) {
    for (let i = 0; i < toApply.length; i += BULK_APPLY_MAX_ROWS) {
      const batch = toApply
        .slice(i, i + BULK_APPLY_MAX_ROWS)
        .map((row) => ({ key: row.key, action: row.proposed, expectedUpdatedAt: row.expectedUpdatedAt }));
      const { results } = await applyBulkResolution(
        db,
        config,
        actor,
        { reason: "reconcile by key", rows: batch },
        startedAt,
        "reconciler",
      );
      for (const result of results) applied.set(result.key, result);
    }
  }
  const rows: ReconcileRowResult[] = plan.rows.map((row) => {
    const base = {
      key: row.key,
      ref: row.ref,
      tenant: row.tenant ?? "",
      tool: row.tool,
      ageMs: row.ageMs ?? 0,
      outcome: row.outcome ?? "unknown",
      checkMs: row.checkMs ?? 0,
    };
    if (row.proposed === "leave") return { ...base, action: "left", reason: row.reason };
    const done = applied.get(row.key);
    const wouldBe = row.proposed === "complete" ? "completed" : "released";
    if (!done) return { ...base, action: wouldBe, reason: row.reason };
    if (done.result === "ok")
      return { ...base, action: wouldBe, reason: row.reason, ...(done.auditId ? { auditId: done.auditId } : {}) };
    return {
      ...base,
      outcome: done.outcome ?? base.outcome,
      action: done.result === "conflict" ? "conflict" : "left",
      reason: done.message,
    };
  });
  const { totals, unresolved } = reconcileTotals(rows, {
    skipped: 0,
    errors: [...applied.values()].filter((r) => r.result === "error").length,
  });
  return {
    dryRun,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    criteria: {
      olderThanMs: null,
      olderThan: "each tool's stuckAfter",
      tool: null,
      tenant: null,
      limit: keys.length,
      concurrency: BULK_CHECK_CONCURRENCY,
    },
    candidates: plan.rows.length,
    rows,
    totals,
    unresolved,
  };
}
