import "server-only";
import { randomUUID } from "node:crypto";
import { Prisma } from "@/generated/prisma/client";
import { env } from "@/lib/config/environment";
import type { Db } from "@/lib/db/prisma";

export type JobName = "reconcile" | "trim" | "bulk_apply";
export const JOB_NAMES: readonly JobName[] = ["reconcile", "trim", "bulk_apply"];

/** A working run writes its heartbeat this often unless IDEM_JOB_HEARTBEAT says otherwise; each row keeps its own. */
export const DEFAULT_HEARTBEAT_MS = 10_000;
/** A run without an end whose heartbeat is this many of its beats old died (a busy database is no death). */
export const MISSED_BEATS = 6;

const heartbeatMs = () => env().IDEM_JOB_HEARTBEAT ?? DEFAULT_HEARTBEAT_MS;

/** What a run did, so far or in all. */
export type JobCounts = {
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

/** One finished run of a console job, as the metrics and the overview read it. */
export type JobRunRecord = JobCounts & {
  job: JobName;
  actor: string;
  dryRun: boolean;
  startedAt: Date;
  finishedAt: Date;
};

/** A run that has no end: running while it beats, dead once its heartbeat is MISSED_BEATS of its beats old. */
export type UnfinishedRun = JobCounts & {
  id: string;
  job: JobName;
  actor: string;
  dryRun: boolean;
  startedAt: Date;
  heartbeatAt: Date;
  heartbeatMs: number;
};

export type RunningJob = {
  /** The newest earlier run of this job that died and no run has followed yet: what it left is this run's. */
  previous: UnfinishedRun | null;
  /** What the run has done so far, written with the next heartbeat. */
  progress(counts: JobCounts): void;
  /** The run did its work. */
  finish(counts: JobCounts): Promise<void>;
  /** The run ended by an error (its own changes so far are committed, each with its audit row). */
  fail(error: unknown, counts?: JobCounts): Promise<void>;
};

type JobRunRow = {
  id: string;
  job: string;
  actor: string;
  dryRun: boolean;
  startedAt: Date;
  heartbeatAt: Date;
  heartbeatMs: number;
  finishedAt: Date | null;
  candidates: number;
  completed: number;
  released: number;
  leftUnknown: number;
  deleted: number;
  kept: number;
};

const countsOf = (row: JobRunRow): Required<JobCounts> => ({
  candidates: row.candidates,
  completed: row.completed,
  released: row.released,
  leftUnknown: row.leftUnknown,
  deleted: row.deleted,
  kept: row.kept,
});

const unfinishedOf = (row: JobRunRow): UnfinishedRun => ({
  id: row.id,
  job: row.job as JobName,
  actor: row.actor,
  dryRun: row.dryRun,
  startedAt: row.startedAt,
  heartbeatAt: row.heartbeatAt,
  heartbeatMs: row.heartbeatMs,
  ...countsOf(row),
});

/** The SQL a dead run answers to: no end, and no beat for MISSED_BEATS of its own beats before `now`. */
const deadAt = (now: Date) =>
  Prisma.sql`finished_at IS NULL AND heartbeat_at < ${now}::timestamptz - make_interval(secs => heartbeat_ms * ${MISSED_BEATS} / 1000.0)`;

type RawRun = {
  id: string;
  job: string;
  actor: string;
  dry_run: boolean;
  started_at: Date;
  heartbeat_at: Date;
  heartbeat_ms: number;
  candidates: number;
  completed: number;
  released: number;
  left_unknown: number;
  deleted: number;
  kept: number;
};
const fromRaw = (r: RawRun): UnfinishedRun =>
  unfinishedOf({
    id: r.id,
    job: r.job,
    actor: r.actor,
    dryRun: r.dry_run,
    startedAt: r.started_at,
    heartbeatAt: r.heartbeat_at,
    heartbeatMs: r.heartbeat_ms,
    finishedAt: null,
    candidates: r.candidates,
    completed: r.completed,
    released: r.released,
    leftUnknown: r.left_unknown,
    deleted: r.deleted,
    kept: r.kept,
  });

const logFailure = (job: JobName, what: string, error: unknown) =>
  console.error(`[${job}] could not ${what}:`, error instanceof Error ? error.message : error);

/**
 * Records a run as it starts, beats every `heartbeatMs` while it works, and records its end. Best
 * effort throughout: the run's own changes commit with their audit rows, and a lost record only
 * makes the pages' "last ran" older (which the silent-job alerts report); it must never turn a run
 * that worked into a failure. A run killed mid-way keeps its row without an end: the pages, the CLI
 * and `idem_job_runs_unfinished` read it as "did not finish", and the next run names it.
 */
export async function startJobRun(
  db: Pick<Db, "jobRun" | "$queryRaw">,
  run: { job: JobName; actor: string; dryRun: boolean; startedAt?: Date },
  beatMs = heartbeatMs(),
): Promise<RunningJob> {
  const id = randomUUID();
  const startedAt = run.startedAt ?? new Date();
  let counts: JobCounts = {};
  let previous: UnfinishedRun | null = null;
  let recorded = false;
  try {
    // A dry run changes nothing, so it finishes nothing a dead run left.
    if (!run.dryRun) previous = await deadRunToFollow(db, run.job, startedAt);
    await db.jobRun.create({
      data: {
        id,
        job: run.job,
        actor: run.actor,
        dryRun: run.dryRun,
        startedAt,
        heartbeatAt: startedAt,
        heartbeatMs: beatMs,
        followsRun: previous?.id ?? null,
      },
    });
    recorded = true;
  } catch (error) {
    logFailure(run.job, "record the run's start", error);
  }
  const write = (data: { finishedAt?: Date; error?: string }): Promise<unknown> => {
    const at = new Date();
    const fields = {
      heartbeatAt: at,
      candidates: counts.candidates ?? 0,
      completed: counts.completed ?? 0,
      released: counts.released ?? 0,
      leftUnknown: counts.leftUnknown ?? 0,
      deleted: counts.deleted ?? 0,
      kept: counts.kept ?? 0,
      ...data,
    };
    // A beat never touches an ended run: one that reached the database after the end would undo its counts.
    if (recorded && !data.finishedAt) return db.jobRun.updateMany({ where: { id, finishedAt: null }, data: fields });
    // Without a start row (the database refused it), an end is still worth a row of its own.
    if (recorded) return db.jobRun.update({ where: { id }, data: fields });
    return db.jobRun.create({
      data: { id, job: run.job, actor: run.actor, dryRun: run.dryRun, startedAt, heartbeatMs: beatMs, ...fields },
    });
  };
  let beating: Promise<unknown> | null = null;
  const timer = recorded
    ? setInterval(() => {
        // One beat at a time: on a slow database a beat is skipped, not queued behind the last.
        if (beating) return;
        beating = write({})
          .catch((error: unknown) => logFailure(run.job, "write its heartbeat", error))
          .finally(() => (beating = null));
      }, beatMs)
    : undefined;
  timer?.unref(); // never what keeps a process alive
  const end = async (data: { error?: string }, last?: JobCounts) => {
    clearInterval(timer);
    await beating;
    if (last) counts = last;
    await write({ finishedAt: new Date(), ...data }).catch((error: unknown) =>
      logFailure(run.job, "record the run's end", error),
    );
  };
  return {
    previous,
    progress: (now) => void (counts = now),
    finish: (last) => end({}, last),
    fail: (error, last) => end({ error: error instanceof Error ? error.message : String(error) }, last),
  };
}

/** The newest run of `job` that died (no end, heartbeat stale) and that no later run has named yet. */
async function deadRunToFollow(db: Pick<Db, "$queryRaw">, job: JobName, now: Date): Promise<UnfinishedRun | null> {
  const [dead] = await db.$queryRaw<RawRun[]>`
    SELECT * FROM job_run dead WHERE job = ${job} AND NOT dry_run AND ${deadAt(now)}
      AND NOT EXISTS (SELECT 1 FROM job_run later WHERE later.follows_run = dead.id)
    ORDER BY started_at DESC LIMIT 1`;
  return dead ? fromRaw(dead) : null;
}

export type LastJobRuns = Record<JobName, JobRunRecord | null>;

/** Each job's newest run that finished its work and was not a dry run: two probes of job_run_job_finished_at_idx. */
export async function lastJobRuns(db: Pick<Db, "jobRun">): Promise<LastJobRuns> {
  const last = (job: JobName) =>
    db.jobRun
      .findFirst({
        where: { job, dryRun: false, finishedAt: { not: null }, error: null },
        orderBy: { finishedAt: "desc" },
      })
      .then((row) =>
        row === null || row.finishedAt === null
          ? null
          : {
              job,
              actor: row.actor,
              dryRun: row.dryRun,
              startedAt: row.startedAt,
              finishedAt: row.finishedAt,
              ...countsOf(row),
            },
      );
  const [reconcile, trim, bulk_apply] = await Promise.all([last("reconcile"), last("trim"), last("bulk_apply")]);
  return { reconcile, trim, bulk_apply };
}

/** Runs (not dry runs) that died after the job's last run that finished its work: what the next run must finish. */
export type DeadJobRuns = Record<JobName, { count: number; newest: UnfinishedRun | null }>;

export async function deadJobRuns(db: Pick<Db, "$queryRaw">, now: Date): Promise<DeadJobRuns> {
  const of = async (job: JobName) => {
    const rows = await db.$queryRaw<(RawRun & { dead: bigint })[]>`
      SELECT *, count(*) OVER () AS dead FROM job_run
      WHERE job = ${job} AND NOT dry_run AND ${deadAt(now)}
        AND started_at > coalesce(
          (SELECT max(started_at) FROM job_run WHERE job = ${job} AND NOT dry_run AND finished_at IS NOT NULL),
          '-infinity')
      ORDER BY started_at DESC LIMIT 1`;
    const newest = rows[0];
    return { count: newest ? Number(newest.dead) : 0, newest: newest ? fromRaw(newest) : null };
  };
  const [reconcile, trim, bulk_apply] = await Promise.all([of("reconcile"), of("trim"), of("bulk_apply")]);
  return { reconcile, trim, bulk_apply };
}

/** The newest runs, each with its state, for `idem jobs`. */
export type JobRunListing = UnfinishedRun & {
  state: "finished" | "failed" | "running" | "did not finish";
  finishedAt: Date | null;
  error: string | null;
  followsRun: string | null;
};

export async function listJobRuns(
  db: Pick<Db, "jobRun">,
  options: { job?: JobName; limit: number },
  now: Date,
): Promise<JobRunListing[]> {
  const rows = await db.jobRun.findMany({
    where: options.job ? { job: options.job } : {},
    orderBy: { startedAt: "desc" },
    take: options.limit,
  });
  return rows.map((row) => ({
    ...unfinishedOf(row),
    finishedAt: row.finishedAt,
    error: row.error,
    followsRun: row.followsRun,
    state:
      row.finishedAt !== null
        ? row.error === null
          ? "finished"
          : "failed"
        : now.getTime() - row.heartbeatAt.getTime() > row.heartbeatMs * MISSED_BEATS
          ? "did not finish"
          : "running",
  }));
}

/** One line that says what a dead run left, for the run that follows it (the CLI prints it). */
export function describeDeadRun(run: UnfinishedRun, now: Date): string {
  const did =
    run.job === "trim"
      ? `it had deleted ${(run.deleted ?? 0).toLocaleString("en")} rows and events`
      : `it had completed ${run.completed ?? 0}, released ${run.released ?? 0} and left ${run.leftUnknown ?? 0} of ${run.candidates ?? 0} claims`;
  const ago = (at: Date) => `${Math.round((now.getTime() - at.getTime()) / 1000)} s ago`;
  return `the previous ${run.job} run (${run.actor}, started ${run.startedAt.toISOString()}, last heartbeat ${ago(run.heartbeatAt)}) did not finish: ${did}; this run goes on from what it left`;
}
