import type { TableBounds } from "@/lib/pages/console-page-data";
import type { DeadJobRuns, JobRunRecord } from "@/lib/audit/job-runs";
import { formatBytes } from "@/lib/format/bytes";
import { formatAge } from "@/lib/format/relative-time";

/** Past the retention by this much, the oldest row says the trim is not keeping up (the IdemOldestRowPastRetention alert's margin). */
const RETENTION_MARGIN_MS = 6 * 3_600_000;

function lastRun(
  run: JobRunRecord | null,
  dead: DeadJobRuns[keyof DeadJobRuns],
  now: Date,
  what: (run: JobRunRecord) => string,
  // A job that should run on a schedule alarms when it never did; an operator's bulk apply need not have.
  neverAlarms = true,
) {
  // A run that died says so first: "last ran" alone would read a killed run as one that never started.
  if (dead.newest) {
    const runs = dead.count === 1 ? "a run" : `${dead.count} runs`;
    return {
      value: "did not finish",
      hint: `${runs} died: the newest started ${formatAge(dead.newest.startedAt, now)} ago, last heartbeat ${formatAge(dead.newest.heartbeatAt, now)} ago; the next run finishes the rest${run ? `. Last finished ${formatAge(run.finishedAt, now)} ago` : ""}`,
      alarming: true,
    };
  }
  if (!run) return { value: "never", hint: "no run recorded (dry runs are not counted)", alarming: neverAlarms };
  return { value: `${formatAge(run.finishedAt, now)} ago`, hint: what(run), alarming: false };
}

/**
 * The promise that keeps the table from becoming somebody's problem: rows are trimmed after the
 * retention, so its size follows the traffic of two days. Rows and bytes come from the catalog
 * (an estimate, labelled so), never from counting the table.
 */
export function TableBoundsFigures({ bounds, now }: { bounds: TableBounds; now: Date }) {
  const { size, retentionMs, jobs, deadRuns } = bounds;
  const oldestAgeMs = size.oldestCreatedAt ? now.getTime() - size.oldestCreatedAt.getTime() : null;
  const retentionHours = Math.round(retentionMs / 3_600_000);
  const reconcile = lastRun(
    jobs.reconcile,
    deadRuns.reconcile,
    now,
    (r) => `${r.completed ?? 0} completed, ${r.released ?? 0} released, ${r.leftUnknown ?? 0} left unknown`,
  );
  const trim = lastRun(
    jobs.trim,
    deadRuns.trim,
    now,
    (r) => `${(r.deleted ?? 0).toLocaleString("en")} deleted, ${r.kept ?? 0} in progress kept`,
  );
  const bulkApply = lastRun(
    jobs.bulk_apply,
    deadRuns.bulk_apply,
    now,
    (r) => `${r.completed ?? 0} completed, ${r.released ?? 0} released, ${r.leftUnknown ?? 0} not applied`,
    false,
  );
  const figures: { label: string; value: string; hint: string; alarming?: boolean }[] = [
    {
      label: "Rows (estimate)",
      value: size.rowsEstimate === null ? "—" : `≈ ${size.rowsEstimate.toLocaleString("en")}`,
      hint:
        size.rowsEstimate === null
          ? "not analysed yet: no planner estimate"
          : "planner estimate (pg_class), not a count",
    },
    {
      label: "Size on disk",
      value: formatBytes(size.totalBytes),
      hint: `table ${formatBytes(size.tableBytes)} + indexes and TOAST ${formatBytes(size.totalBytes - size.tableBytes)}`,
    },
    {
      label: "Bytes per row",
      value: size.bytesPerRow === null ? "—" : `≈ ${size.bytesPerRow.toLocaleString("en")} B`,
      hint: "size on disk ÷ estimated rows, indexes included",
    },
    {
      label: "Oldest row",
      value: oldestAgeMs === null || !size.oldestCreatedAt ? "—" : formatAge(size.oldestCreatedAt, now),
      hint: `retention ${retentionHours} h${oldestAgeMs !== null && oldestAgeMs > retentionMs + RETENTION_MARGIN_MS ? ": past it, is the trim running?" : ""}`,
      alarming: oldestAgeMs !== null && oldestAgeMs > retentionMs + RETENTION_MARGIN_MS,
    },
    { label: "Last reconcile", ...reconcile },
    { label: "Last trim", ...trim },
    { label: "Last bulk apply", ...bulkApply },
  ];
  return (
    <section aria-labelledby="table-bounds-heading" className="mt-6" data-testid="overview-table-bounds">
      <h2 id="table-bounds-heading" className="mb-2 text-sm font-medium text-slate-700">
        Table size and retention{" "}
        <span className="ml-1 font-normal text-slate-500">
          rows are kept {retentionHours} h; figures from the catalog
        </span>
      </h2>
      <dl className="grid grid-cols-2 gap-4 lg:grid-cols-7">
        {figures.map((f) => (
          <div key={f.label} className="min-w-0 rounded-lg border border-slate-200 bg-white p-4">
            <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{f.label}</dt>
            <dd
              className={`mt-1 text-xl font-semibold tabular-nums ${f.alarming ? "text-red-700" : ""}`}
              title={f.hint}
              data-testid={`overview-${f.label
                .toLowerCase()
                .replace(/[^a-z]+/g, "-")
                .replace(/-$/, "")}`}
            >
              {f.value}
            </dd>
            <dd className="mt-0.5 text-xs text-slate-500">{f.hint}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
