import "server-only";
import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db/prisma";

export type JobName = "reconcile" | "trim" | "bulk_apply";

/** One run of a console job, as the metrics and the overview read it. */
export type JobRunRecord = {
  job: JobName;
  actor: string;
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
  /** reconcile: claims it considered; bulk_apply: rows it was given (each key once). */
  candidates?: number;
  /** reconcile, bulk_apply: completed with the processor's receipt (taken). */
  completed?: number;
  /** reconcile, bulk_apply: released (not taken). */
  released?: number;
  /** reconcile: left in_progress (unknown outcome, conflict, error); bulk_apply: rows not applied (conflict, changed outcome, error). */
  leftUnknown?: number;
  /** trim: rows and events deleted. */
  deleted?: number;
  /** trim: in_progress rows older than the cutoff it kept. */
  kept?: number;
};

/**
 * Records a finished run. Best effort: the run's own changes are committed already, with their
 * audit rows; a lost run record only makes the "last ran" figure older, which the reconciler-silent
 * alert then reports — it must not turn a run that worked into a failure.
 */
export async function recordJobRun(db: Pick<Db, "jobRun">, run: JobRunRecord): Promise<void> {
  try {
    await db.jobRun.create({
      data: {
        id: randomUUID(),
        job: run.job,
        actor: run.actor,
        dryRun: run.dryRun,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        candidates: run.candidates ?? 0,
        completed: run.completed ?? 0,
        released: run.released ?? 0,
        leftUnknown: run.leftUnknown ?? 0,
        deleted: run.deleted ?? 0,
        kept: run.kept ?? 0,
      },
    });
  } catch (error) {
    console.error(`[${run.job}] could not record the run:`, error instanceof Error ? error.message : error);
  }
}

export type LastJobRuns = Record<JobName, JobRunRecord | null>;

/** Each job's newest run that was not a dry run: one probe of job_run_job_finished_at_idx per job. */
export async function lastJobRuns(db: Pick<Db, "jobRun">): Promise<LastJobRuns> {
  const last = (job: JobName) =>
    db.jobRun.findFirst({ where: { job, dryRun: false }, orderBy: { finishedAt: "desc" } }).then((row) =>
      row === null
        ? null
        : {
            job,
            actor: row.actor,
            dryRun: row.dryRun,
            startedAt: row.startedAt,
            finishedAt: row.finishedAt,
            candidates: row.candidates,
            completed: row.completed,
            released: row.released,
            leftUnknown: row.leftUnknown,
            deleted: row.deleted,
            kept: row.kept,
          },
    );
  const [reconcile, trim, bulk_apply] = await Promise.all([last("reconcile"), last("trim"), last("bulk_apply")]);
  return { reconcile, trim, bulk_apply };
}
