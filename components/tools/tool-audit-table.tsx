"use client";

import { useMemo } from "react";
import { Badge } from "@/components/ui/badge";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import type { ToolAuditRow } from "@/lib/annotations/build-audit";
import { AnnotationCells } from "./annotation-cells";
import { EvidenceFigures } from "./evidence-figures";
import { ReviewForm } from "./review-form";
import { VerificationCell } from "./verification-cell";
import { VerdictBadge } from "./verdict-badge";

/** Verdicts that a "naturally idempotent" review can answer: a claim with nothing in the table behind it. */
const REVIEWABLE = new Set([
  "claim_without_key_evidence",
  "claim_without_recent_evidence",
  "claim_reviewed_naturally_idempotent",
]);

const column = dataColumns<ToolAuditRow>();
const head = { headerClassName: "normal-case tracking-normal text-slate-600" };

/** Who may do what on the rows: review claims (admins), verify tools of the servers the file marks "verify" (admins). */
export type ToolRowPowers = { canReview: boolean; verifiableServers: readonly string[] };

function toolColumns({ canReview, verifiableServers }: ToolRowPowers) {
  return column.columns([
    column.accessor("name", {
      id: "tool",
      header: "Tool",
      meta: head,
      cell: ({ row: { original: tool } }) => (
        <>
          <div className="font-mono font-medium">{tool.name}</div>
          <div className="text-xs text-slate-500">{tool.server ?? "listed by no server"}</div>
          {tool.changes.length > 0 ? (
            <ul className="mt-1 text-xs text-violet-800" data-testid="tool-changes">
              {tool.changes.map((change) => (
                <li key={change}>changed: {change}</li>
              ))}
            </ul>
          ) : null}
        </>
      ),
    }),
    column.display({
      id: "annotations",
      header: "Annotations (declared · effective)",
      meta: {
        ...head,
        headerTitle: "hint · declared · effective (with the spec's defaults)",
        cellClassName: "py-1 md:py-2",
      },
      cell: ({ row: { original: tool } }) => (
        <>
          <div className="mb-0.5 text-[11px] text-slate-500 md:hidden">hint · declared · effective</div>
          <AnnotationCells declared={tool.declared} effective={tool.effective} />
        </>
      ),
    }),
    column.display({
      id: "evidence",
      header: "Evidence",
      meta: { ...head, cellClassName: "py-1 md:py-2" },
      cell: ({ row: { original: tool } }) => <EvidenceFigures evidence={tool.evidence} />,
    }),
    column.display({
      id: "test",
      header: "Double-call test",
      meta: {
        ...head,
        headerTitle:
          "The latest verification: the same call at once and again, the answers, the table and the upstream read",
        cellClassName: "max-w-56",
      },
      cell: ({ row: { original: tool } }) => (
        <VerificationCell
          server={tool.server}
          tool={tool.name}
          verification={tool.verification}
          canVerify={tool.server !== null && verifiableServers.includes(tool.server)}
          inputSchema={tool.inputSchema}
        />
      ),
    }),
    column.display({
      id: "verdict",
      header: "Verdict",
      meta: { ...head, cellClassName: "max-w-xl" },
      cell: ({ row: { original: tool } }) => (
        <>
          <VerdictBadge label={tool.verdictLabel} tone={tool.tone} certain={tool.certain} kind={tool.verdict} />
          <AlsoUnresolvedBadge tool={tool} />
          <p className="mt-1 text-xs text-slate-700" data-testid="verdict-explanation">
            {tool.explanation}
          </p>
          {tool.fix ? (
            <p className="mt-1 text-xs text-slate-900">
              <span className="font-semibold">Fix: </span>
              {tool.fix}
            </p>
          ) : null}
          {canReview && tool.server !== null && REVIEWABLE.has(tool.verdict) ? (
            <ReviewForm server={tool.server} tool={tool.name} />
          ) : null}
        </>
      ),
    }),
  ]);
}

/**
 * Unresolved claims on a row whose verdict is another word (a verified tool with stuck claims): the badge the
 * summary line's "also unresolved" counts, so the line names nothing the rows do not show.
 */
function AlsoUnresolvedBadge({ tool }: { tool: ToolAuditRow }) {
  const claims = tool.evidence.stuck + tool.evidence.unresolvedOutcomeUnknown;
  if (tool.verdict === "claim_with_unresolved_rows" || claims === 0) return null;
  return (
    <Badge tone="warn" className="ml-1" data-also-unresolved={String(claims)}>
      also unresolved: {claims} {claims === 1 ? "claim" : "claims"}
    </Badge>
  );
}

/** One row per tool: declared vs effective hints, the table's evidence, the verdict with its explanation and fix. */
export function ToolAuditTable({ tools, canReview, verifiableServers }: { tools: ToolAuditRow[] } & ToolRowPowers) {
  // The cells are components to the table (flexRender): new column functions on every render would
  // remount every cell, so a refresh after a review or a verification would lose the open form, the
  // dialog and its result. They change only with what the viewer may do.
  const servers = verifiableServers.join("\n");
  const columns = useMemo(
    () => toolColumns({ canReview, verifiableServers: servers === "" ? [] : servers.split("\n") }),
    [canReview, servers],
  );
  if (tools.length === 0) {
    return (
      <p
        className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-center text-sm text-slate-600"
        data-testid="no-tools"
      >
        No tools listed yet: refresh the listings or upload one.
      </p>
    );
  }
  return (
    <DataTable
      columns={columns}
      data={tools}
      getRowId={(tool) => `${tool.server ?? ""}/${tool.name}`}
      testId="tool-audit-table"
      rowAttributes={(tool) => ({
        "data-tool": tool.name,
        "data-server": tool.server ?? "",
        "data-verdict": tool.verdict,
        className: "align-top md:py-0",
      })}
    />
  );
}
