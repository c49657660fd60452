import "server-only";
import { startJobRun } from "@/lib/audit/job-runs";
import { actorLabel } from "@/lib/audit/write-audit";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { applyBulkResolution, type BulkApplyInput, type BulkApplyResult } from "./bulk-plan";

/**
 * An operator's bulk apply (POST /api/v1/bulk/apply), recorded in job_run as the reconciler and
 * the trim record theirs: when it starts, with a heartbeat while it works, and its end with the rows
 * completed, released and not applied (a server killed mid-way leaves it "did not finish").
 * The reconciler's run over keys applies without this: it is a reconcile, not a bulk apply.
 */
export async function applyBulkPlan(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  input: BulkApplyInput,
  now = new Date(),
): Promise<BulkApplyResult> {
  const job = await startJobRun(db, { job: "bulk_apply", actor: actorLabel(actor), dryRun: false });
  try {
    const applied = await applyBulkResolution(db, config, actor, input, now);
    const ok = applied.results.filter((row) => row.result === "ok");
    await job.finish({
      candidates: applied.results.length,
      completed: ok.filter((row) => row.action === "complete").length,
      released: ok.filter((row) => row.action === "release").length,
      leftUnknown: applied.results.length - ok.length,
    });
    return applied;
  } catch (error) {
    await job.fail(error);
    throw error;
  }
}
