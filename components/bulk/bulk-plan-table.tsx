"use client";

import { Link } from "@/components/ui/link";
import { useMemo } from "react";
import { recordHrefFromStuck } from "@/lib/records/record-page-params";
import type { StuckFilter } from "@/lib/records/stuck-claims";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { formatAge } from "@/lib/format/relative-time";
import type { BulkRowResult, PlannedRow, ProposedAction } from "@/lib/resolve/bulk-plan";
import type { ProcessorOutcome } from "@/lib/resolve/processor-check-types";

const OUTCOME_TONE: Record<ProcessorOutcome, BadgeTone> = { taken: "good", not_taken: "info", unknown: "warn" };
const OUTCOME_LABEL: Record<ProcessorOutcome, string> = { taken: "taken", not_taken: "not taken", unknown: "unknown" };
const PROPOSED: Record<ProposedAction, { label: string; style: string }> = {
  complete: { label: "Complete with receipt", style: "text-emerald-800" },
  release: { label: "Release the claim", style: "text-sky-800" },
  leave: { label: "Leave as is", style: "text-slate-500" },
};
const RESULT: Record<BulkRowResult["result"], { label: string; tone: BadgeTone }> = {
  ok: { label: "done", tone: "good" },
  conflict: { label: "conflict", tone: "danger" },
  changed_outcome: { label: "answer changed", tone: "warn" },
  error: { label: "error", tone: "danger" },
};

const column = dataColumns<PlannedRow>();
const dash = <span className="text-slate-500">—</span>;

/** `forceReleaseWithin`: admins' rows nobody could be asked about link to the forced release, carrying the Stuck filter. */
function planColumns(results: Map<string, BulkRowResult>, now: Date, forceReleaseWithin: StuckFilter | null) {
  return column.columns([
    column.accessor("ref", {
      id: "ref",
      header: "Ref",
      cell: ({ row: { original: row } }) => (
        <Link
          href={`/records/${row.key}`}
          className="font-mono text-xs underline-offset-2 hover:underline"
          title={row.key}
        >
          {row.ref}
        </Link>
      ),
    }),
    column.accessor("tenant", {
      id: "tenant",
      header: "Tenant",
      meta: { cellClassName: "whitespace-nowrap" },
      cell: (info) => info.getValue() ?? dash,
    }),
    column.accessor("tool", {
      id: "tool",
      header: "Tool",
      meta: { cellClassName: "font-mono text-xs" },
      cell: (info) => info.getValue() ?? <span className="italic text-slate-500">unrecorded</span>,
    }),
    column.accessor("ageMs", {
      id: "age",
      header: "Age",
      meta: { cellClassName: "whitespace-nowrap tabular-nums" },
      cell: (info) => {
        const ageMs = info.getValue();
        return ageMs === null ? "—" : formatAge(new Date(now.getTime() - ageMs), now);
      },
    }),
    column.accessor("outcome", {
      id: "outcome",
      header: "Processor says",
      meta: { cellClassName: "max-w-md" },
      cell: ({ row: { original: row } }) => (
        <>
          {row.outcome ? (
            <Badge tone={OUTCOME_TONE[row.outcome]}>{OUTCOME_LABEL[row.outcome]}</Badge>
          ) : (
            <span className="text-xs text-slate-500">not asked</span>
          )}
          <div className="mt-0.5 text-xs text-slate-600">{row.reason}</div>
          {row.nobodyToAsk && row.status === "in_progress" ? (
            <div className="mt-0.5 text-xs text-slate-600" data-testid="plan-nobody-to-ask">
              {forceReleaseWithin ? (
                <Link
                  href={recordHrefFromStuck(row.key, forceReleaseWithin, { toResolve: true })}
                  className="font-medium underline"
                  data-testid="force-release-link"
                >
                  Force release on the record page
                </Link>
              ) : (
                "Asking again cannot help; an admin can force a release on the record page."
              )}
            </div>
          ) : null}
        </>
      ),
    }),
    column.accessor("proposed", {
      id: "proposed",
      header: "Proposed",
      meta: { cellClassName: "whitespace-nowrap font-medium" },
      cell: (info) => (
        <span className={PROPOSED[info.getValue()].style} data-testid="proposed-action">
          {PROPOSED[info.getValue()].label}
        </span>
      ),
    }),
    column.display({
      id: "result",
      header: "Result",
      meta: { cellClassName: "max-w-xs" },
      cell: ({ row: { original: row } }) => {
        const result = results.get(row.key);
        if (!result)
          return <span className="text-xs text-slate-500">{row.proposed === "leave" ? "not applied" : "pending"}</span>;
        return (
          <>
            <Badge tone={RESULT[result.result].tone} solid className="rounded px-1.5" data-testid="row-result">
              {RESULT[result.result].label}
            </Badge>
            <div className="mt-0.5 text-xs text-slate-600">{result.message}</div>
          </>
        );
      },
    }),
  ]);
}

/** The dry-run plan, row by row: what the processor said, what the console proposes, and (once applied) what happened. */
export function BulkPlanTable({
  rows,
  results,
  now,
  mayForceRelease,
  within,
}: {
  rows: PlannedRow[];
  results: Map<string, BulkRowResult>;
  now: Date;
  /** Admins: a row nobody could be asked about links to its record's forced release. */
  mayForceRelease: boolean;
  /** The Stuck filter the plan was made in: the record page it links to offers the next claim within it. */
  within: StuckFilter;
}) {
  const forceReleaseWithin = mayForceRelease ? within : null;
  const columns = useMemo(() => planColumns(results, now, forceReleaseWithin), [results, now, forceReleaseWithin]);
  return (
    <DataTable
      columns={columns}
      data={rows}
      getRowId={(row) => row.key}
      testId="bulk-plan-table"
      rowAttributes={(row) => ({
        "data-key": row.key,
        "data-proposed": row.proposed,
        "data-result": results.get(row.key)?.result,
        className: "align-top",
      })}
    />
  );
}
