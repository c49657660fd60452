import Link from "next/link";
import { formatAge } from "@/lib/format/relative-time";
import type { BulkRowResult, PlannedRow, ProposedAction } from "@/lib/resolve/bulk-plan";
import type { ProcessorOutcome } from "@/lib/resolve/processor-check";

const OUTCOME_STYLE: Record<ProcessorOutcome, string> = {
  taken: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  not_taken: "bg-sky-50 text-sky-800 ring-sky-200",
  unknown: "bg-amber-50 text-amber-800 ring-amber-200",
};
const OUTCOME_LABEL: Record<ProcessorOutcome, string> = { taken: "taken", not_taken: "not taken", unknown: "unknown" };
const PROPOSED: Record<ProposedAction, { label: string; style: string }> = {
  complete: { label: "Complete with receipt", style: "text-emerald-800" },
  release: { label: "Release the claim", style: "text-sky-800" },
  leave: { label: "Leave as is", style: "text-slate-500" },
};
const RESULT: Record<BulkRowResult["result"], { label: string; style: string }> = {
  ok: { label: "done", style: "bg-emerald-600 text-white" },
  conflict: { label: "conflict", style: "bg-red-600 text-white" },
  changed_outcome: { label: "answer changed", style: "bg-amber-500 text-white" },
  error: { label: "error", style: "bg-red-800 text-white" },
};

const badge = "inline-flex whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset";

/** The dry-run plan, row by row: what the processor said, what the console proposes, and (once applied) what happened. */
export function BulkPlanTable({ rows, results, now }: { rows: PlannedRow[]; results: Map<string, BulkRowResult>; now: Date }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-sm" data-testid="bulk-plan-table">
        <thead className="border-b border-slate-200 bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="px-3 py-2">Ref</th>
            <th scope="col" className="px-3 py-2">Tenant</th>
            <th scope="col" className="px-3 py-2">Tool</th>
            <th scope="col" className="px-3 py-2">Age</th>
            <th scope="col" className="px-3 py-2">Processor says</th>
            <th scope="col" className="px-3 py-2">Proposed</th>
            <th scope="col" className="px-3 py-2">Result</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const result = results.get(row.key);
            return (
              <tr key={row.key} data-key={row.key} data-proposed={row.proposed} data-result={result?.result} className="border-b border-slate-100 align-top last:border-0">
                <td className="px-3 py-2">
                  <Link href={`/records/${row.key}`} className="font-mono text-xs underline-offset-2 hover:underline" title={row.key}>
                    {row.ref}
                  </Link>
                </td>
                <td className="whitespace-nowrap px-3 py-2">{row.tenant ?? <span className="text-slate-500">—</span>}</td>
                <td className="px-3 py-2 font-mono text-xs">{row.tool ?? <span className="italic text-slate-500">unrecorded</span>}</td>
                <td className="whitespace-nowrap px-3 py-2 tabular-nums">{row.ageMs === null ? "—" : formatAge(new Date(now.getTime() - row.ageMs), now)}</td>
                <td className="max-w-md px-3 py-2">
                  {row.outcome ? <span className={`${badge} ${OUTCOME_STYLE[row.outcome]}`}>{OUTCOME_LABEL[row.outcome]}</span> : <span className="text-xs text-slate-500">not asked</span>}
                  <div className="mt-0.5 text-xs text-slate-600">{row.reason}</div>
                </td>
                <td className={`whitespace-nowrap px-3 py-2 font-medium ${PROPOSED[row.proposed].style}`} data-testid="proposed-action">
                  {PROPOSED[row.proposed].label}
                </td>
                <td className="max-w-xs px-3 py-2">
                  {result ? (
                    <>
                      <span className={`inline-flex rounded px-1.5 py-0.5 text-xs font-medium ${RESULT[result.result].style}`} data-testid="row-result">
                        {RESULT[result.result].label}
                      </span>
                      <div className="mt-0.5 text-xs text-slate-600">{result.message}</div>
                    </>
                  ) : row.proposed === "leave" ? (
                    <span className="text-xs text-slate-500">not applied</span>
                  ) : (
                    <span className="text-xs text-slate-500">pending</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
