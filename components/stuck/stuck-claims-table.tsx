"use client";

import { Link } from "@/components/ui/link";
import type { RowSelectionState } from "@tanstack/react-table";
import { useRouter } from "next/navigation";
import { createContext, useContext, useMemo, useState, type ReactNode } from "react";
import { formatDuration } from "@/lib/config/duration";
import type { RecordListItem } from "@/lib/records/list-records";
import type { NextStuckClaim, StuckFilter } from "@/lib/records/stuck-claims";
import type { ResolvedClaim } from "@/lib/resolve/resolved-claim";
import { recordHrefFromStuck } from "@/lib/records/record-page-params";
import { BULK_PLAN_MAX_ROWS } from "@/lib/resolve/bulk-limits";
import { BulkPlanPanel, type BulkPlanRequest } from "@/components/bulk/bulk-plan-panel";
import { CopyRefButton } from "@/components/records/copy-ref-button";
import { RecordTime } from "@/components/records/record-time";
import { ResolveConfirmation } from "@/components/resolve/resolve-confirmation";
import { StuckRowResolve } from "@/components/stuck/stuck-row-resolve";
import { ActionResult } from "@/components/ui/action-result";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { Button } from "@/components/ui/button";

type Props = {
  claims: RecordListItem[];
  now: string;
  /** Operators and admins plan and apply; viewers see the list only. */
  canPlan: boolean;
  filter: { tenant: string | null; tool: string | null };
  /** Stuck claims matching the filter, on every page. */
  total: number;
  /** Each row's exact version (those who may resolve only): the compare-and-set's expectation. */
  versions: Record<string, string | null> | null;
  /** May release (an operator may; the API checks again). */
  mayRelease: boolean;
  /** May force a release (admins; the API checks again). */
  mayForceRelease: boolean;
  /** The tools with a processor to ask: other rows offer no asking, only what can clear them. */
  askableTools: string[];
  /** Shown in place of the table when no claim is left (the confirmation above it stays). */
  emptyState: ReactNode;
};

type RowActions = {
  /** Operators and admins resolve from the row; viewers ask the processor only (read-only, as on the record page). */
  mayResolve: boolean;
  versions: Record<string, string | null>;
  mayRelease: boolean;
  mayForceRelease: boolean;
  askableTools: ReadonlySet<string>;
  onResolved: (resolved: ResolvedClaim, nextStuck: NextStuckClaim | null) => void;
};

/**
 * What the cells read that changes with each render of the list (its instant, the rows' versions):
 * through context, so the column definitions stay the same objects. New definitions would be new
 * cell components, and an auto-refresh would throw away a row's answer and typed reason.
 */
const StuckTableContext = createContext<{ now: string; within: StuckFilter; actions: RowActions | null }>({
  now: new Date(0).toISOString(),
  within: { tenant: null, tool: null },
  actions: null,
});

function RefCell({ claim }: { claim: RecordListItem }) {
  const { within } = useContext(StuckTableContext);
  return (
    <span className="inline-flex items-center gap-1">
      <Link
        href={recordHrefFromStuck(claim.key, within)}
        className="font-mono text-xs underline-offset-2 hover:underline"
        title={claim.key}
      >
        {claim.ref}
      </Link>
      <CopyRefButton text={claim.ref} />
    </span>
  );
}

function AgeCell({ at }: { at: string }) {
  const { now } = useContext(StuckTableContext);
  return <RecordTime at={at} now={now} suffix="" />;
}

function ResolveCell({ claim }: { claim: RecordListItem }) {
  const { within, actions } = useContext(StuckTableContext);
  if (!actions) return null;
  return (
    <StuckRowResolve
      claim={claim}
      mayResolve={actions.mayResolve}
      version={actions.versions[claim.key] ?? null}
      mayRelease={actions.mayRelease}
      mayForceRelease={actions.mayForceRelease}
      askable={claim.tool !== null && actions.askableTools.has(claim.tool)}
      within={within}
      onResolved={(attempt) => actions.onResolved(attempt.resolved, attempt.nextStuck)}
    />
  );
}

const column = dataColumns<RecordListItem>();
const unrecorded = <span className="font-sans italic text-slate-500">unrecorded</span>;

function stuckColumns(rowActions: "resolve" | "ask") {
  const resolveColumn = [
    column.display({
      id: "resolve",
      header: rowActions === "resolve" ? "Resolve" : "Processor",
      // A fixed width: an answer opening in one row wraps inside it instead of widening the column.
      meta: { headerClassName: "md:w-80", cellClassName: "align-top md:w-80 md:max-w-80" },
      cell: ({ row: { original: claim } }) => <ResolveCell claim={claim} />,
    }),
  ];
  return column.columns([
    column.accessor("ref", {
      id: "ref",
      header: "Ref",
      cell: ({ row: { original: claim } }) => <RefCell claim={claim} />,
    }),
    column.accessor("tenant", { id: "tenant", header: "Tenant" }),
    column.accessor("subject", { id: "subject", header: "Subject", cell: (info) => info.getValue() ?? unrecorded }),
    column.accessor("tool", {
      id: "tool",
      header: "Tool",
      meta: { cellClassName: "font-mono text-xs" },
      cell: (info) => info.getValue() ?? unrecorded,
    }),
    column.accessor("createdAt", {
      id: "age",
      header: "Age",
      meta: { cellClassName: "font-medium text-red-800" },
      cell: (info) => <AgeCell at={info.getValue()} />,
    }),
    column.accessor("stuckAfterMs", {
      id: "threshold",
      header: "Threshold",
      meta: { cellClassName: "text-xs text-slate-500" },
      cell: (info) => formatDuration(info.getValue()),
    }),
    ...resolveColumn,
  ]);
}

// Made once: the same definitions through every refresh (see StuckTableContext).
const COLUMNS_WITH_RESOLVE = stuckColumns("resolve");
const COLUMNS_WITH_ASK = stuckColumns("ask");

/** The stuck claims of this page, with checkboxes, and the way into a bulk plan. */
export function StuckClaimsTable({
  claims,
  now,
  canPlan,
  filter,
  total,
  versions,
  mayRelease,
  mayForceRelease,
  askableTools,
  emptyState,
}: Props) {
  const router = useRouter();
  const [selection, setSelection] = useState<RowSelectionState>({});
  const [request, setRequest] = useState<BulkPlanRequest | null>(null);
  const [confirmed, setConfirmed] = useState<{ resolved: ResolvedClaim; nextStuck: NextStuckClaim | null } | null>(
    null,
  );
  const actions = useMemo<RowActions>(
    () =>
      canPlan && versions
        ? {
            mayResolve: true,
            versions,
            mayRelease,
            mayForceRelease,
            askableTools: new Set(askableTools),
            onResolved: (resolved, nextStuck) => {
              setConfirmed({ resolved, nextStuck });
              router.refresh(); // the resolved row leaves the list; the confirmation above it stays
            },
          }
        : {
            mayResolve: false,
            versions: {},
            mayRelease: false,
            mayForceRelease: false,
            askableTools: new Set(askableTools),
            onResolved: () => {},
          },
    [canPlan, versions, mayRelease, mayForceRelease, askableTools, router],
  );
  const context = useMemo(() => ({ now, within: filter, actions }), [now, filter, actions]);
  const visible = useMemo(() => new Set(claims.map((c) => c.key)), [claims]);
  // After a refresh resolved rows disappear: a selection only counts rows still shown.
  const chosen = Object.keys(selection).filter((key) => visible.has(key));

  return (
    <>
      {canPlan ? (
        <div className="mb-3 flex flex-wrap items-center gap-2">
          <Button
            variant="primary"
            size="md"
            disabled={chosen.length === 0}
            onClick={() => setRequest({ keys: chosen })}
            data-testid="plan-selected"
          >
            Plan for selected ({chosen.length})
          </Button>
          <Button
            variant="secondary"
            size="md"
            disabled={total === 0}
            onClick={() => setRequest({ filter: { ...filter } })}
            data-testid="plan-all"
          >
            {total > BULK_PLAN_MAX_ROWS
              ? `Plan for the ${BULK_PLAN_MAX_ROWS} oldest of ${total.toLocaleString("en")} matching`
              : `Plan for all ${total.toLocaleString("en")} matching`}
          </Button>
          <span className="text-xs text-slate-500">
            A plan is a dry run: it asks each processor and proposes; nothing changes until you apply it.
          </span>
        </div>
      ) : claims.length > 0 ? (
        <p className="mb-3 text-sm text-slate-600" data-testid="stuck-ask-operator">
          Ask the processor from a row; an operator or admin can resolve these claims: open one to copy its link for
          them.
        </p>
      ) : null}

      <ActionResult resultKey={confirmed?.resolved.auditId ?? null} label="resolution" className="mb-3">
        {confirmed ? (
          <ResolveConfirmation
            resolved={confirmed.resolved}
            nextStuck={confirmed.nextStuck}
            now={now}
            within={filter}
          />
        ) : null}
      </ActionResult>

      {claims.length === 0 ? (
        emptyState
      ) : (
        <StuckTableContext.Provider value={context}>
          <DataTable
            columns={actions.mayResolve ? COLUMNS_WITH_RESOLVE : COLUMNS_WITH_ASK}
            data={claims}
            getRowId={(claim) => claim.key}
            testId="stuck-table"
            selection={
              canPlan
                ? {
                    state: selection,
                    onChange: setSelection,
                    rowLabel: (claim) => `Select ${claim.ref}`,
                    allLabel: "Select every claim on this page",
                  }
                : undefined
            }
            // Hovered no darker than red-50/60: the rows' slate-500 captions keep 4.5:1 (4.35 on red-50).
            rowAttributes={(claim) => ({ "data-key": claim.key, className: "bg-red-50/40 hover:bg-red-50/60" })}
          />
        </StuckTableContext.Provider>
      )}

      {request ? (
        <BulkPlanPanel
          key={JSON.stringify(request)}
          request={request}
          within={filter}
          mayForceRelease={mayForceRelease}
          onClose={() => setRequest(null)}
        />
      ) : null}
    </>
  );
}
