import type { ToolAuditRow } from "@/lib/annotations/build-audit";
import { AnnotationCells } from "./annotation-cells";
import { EvidenceFigures } from "./evidence-figures";
import { ReviewForm } from "./review-form";
import { VerdictBadge } from "./verdict-badge";

/** Verdicts that a "naturally idempotent" review can answer: a claim with nothing in the table behind it. */
const REVIEWABLE = new Set(["claim_without_key_evidence", "claim_without_recent_evidence", "claim_reviewed_naturally_idempotent"]);

/** One row per tool: declared vs effective hints, the table's evidence, the verdict with its explanation and fix. */
export function ToolAuditTable({ tools, canReview }: { tools: ToolAuditRow[]; canReview: boolean }) {
  if (tools.length === 0) {
    return <p className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-600" data-testid="no-tools">No tools listed yet: refresh the listings or upload one.</p>;
  }
  return (
    // Below md each tool is a block of its own, verdict included: a phone never scrolls sideways to the verdict.
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="block min-w-full text-sm md:table" data-testid="tool-audit-table">
        <thead className="hidden bg-slate-50 text-left text-xs text-slate-600 md:table-header-group">
          <tr>
            <th className="px-3 py-2 font-medium">Tool</th>
            <th className="px-3 py-2 font-medium" title="hint · declared · effective (with the spec's defaults)">Annotations (declared · effective)</th>
            <th className="px-3 py-2 font-medium">Evidence</th>
            <th className="px-3 py-2 font-medium">Verdict</th>
          </tr>
        </thead>
        <tbody className="block divide-y divide-slate-100 align-top md:table-row-group">
          {tools.map((tool) => (
            <tr key={`${tool.server ?? ""}/${tool.name}`} data-tool={tool.name} data-verdict={tool.verdict} className="block py-1 md:table-row md:py-0">
              <td className="block px-3 py-2 md:table-cell">
                <div className="font-mono font-medium">{tool.name}</div>
                <div className="text-xs text-slate-500">{tool.server ?? "listed by no server"}</div>
                {tool.changes.length > 0 ? (
                  <ul className="mt-1 text-xs text-violet-800" data-testid="tool-changes">
                    {tool.changes.map((change) => (
                      <li key={change}>changed: {change}</li>
                    ))}
                  </ul>
                ) : null}
              </td>
              <td className="block px-3 py-1 md:table-cell md:py-2">
                <div className="mb-0.5 text-[11px] text-slate-500 md:hidden">hint · declared · effective</div>
                <AnnotationCells declared={tool.declared} effective={tool.effective} />
              </td>
              <td className="block px-3 py-1 md:table-cell md:py-2">
                <EvidenceFigures evidence={tool.evidence} />
              </td>
              <td className="block max-w-xl px-3 py-2 md:table-cell">
                <VerdictBadge label={tool.verdictLabel} tone={tool.tone} certain={tool.certain} kind={tool.verdict} />
                <p className="mt-1 text-xs text-slate-700" data-testid="verdict-explanation">{tool.explanation}</p>
                {tool.fix ? (
                  <p className="mt-1 text-xs text-slate-900">
                    <span className="font-semibold">Fix: </span>
                    {tool.fix}
                  </p>
                ) : null}
                {canReview && tool.server !== null && REVIEWABLE.has(tool.verdict) ? <ReviewForm server={tool.server} tool={tool.name} /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
