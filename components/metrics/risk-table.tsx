"use client";

import { useMemo } from "react";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { MIN_RATE_CALLS } from "@/lib/metrics/metrics-report";
import { formatCount, formatMs, formatRate, formatRatio, NOT_RECORDED } from "./metric-format";
import { RiskCards } from "./risk-cards";
import { unbackedRow, type RiskRow, type ToolFacts } from "./risk-row";
import { VerifiedUpstreamNote } from "./verified-upstream-note";

// Headers wrap (two short lines) so the whole row fits at 1440 px, figures included.
const thBase = "px-2 py-2 align-bottom text-[11px] font-medium uppercase leading-tight tracking-wide text-slate-500";
const th = `${thBase} text-right`;
const td = "px-2 py-1.5 text-right align-top tabular-nums whitespace-nowrap";

function Missing({ text }: { text: string }) {
  return (
    <span className="italic text-slate-500" data-missing="true">
      {text}
    </span>
  );
}

function cell(value: string) {
  return value === NOT_RECORDED || value === "not reported" ? <Missing text={value} /> : value;
}

/** A rate over few calls is shown with its count, muted: it is not a figure to act on. */
function RateCell({ row }: { row: RiskRow }) {
  const text = formatRate(row.suppressionRate, row.eventsRecorded ? "—" : NOT_RECORDED);
  if (!row.smallSample) return cell(text);
  return (
    <span
      className="text-amber-700"
      data-small-sample="true"
      title={`fewer than ${MIN_RATE_CALLS} calls: too few to read as a rate`}
    >
      {text} <span className="text-xs">of {formatCount(row.suppressionCalls)}</span>
    </span>
  );
}

/** How many the console resolved, and below it how long those claims had waited (p50 / p95). */
function ResolvedCell({
  count,
  p50,
  p95,
  testId,
}: {
  count: number;
  p50: number | null;
  p95: number | null;
  testId: string;
}) {
  return (
    <span data-testid={testId}>
      <span data-part="count">{count.toLocaleString("en")}</span>
      {count > 0 ? (
        <span className="block text-[11px] text-slate-500" data-part="delay" title="claim to resolution, p50 / p95">
          {formatMs(p50)} / {formatMs(p95)}
        </span>
      ) : null}
    </span>
  );
}

/** Under a tool's name: what its listing declares, and "never seen" when nothing of it is in the window. */
function ToolNotes({ facts, unbacked }: { facts: ToolFacts; unbacked: boolean }) {
  const hint =
    facts.listedBy.length === 0
      ? "not listed"
      : facts.declaredIdempotentHint === null
        ? "not declared"
        : String(facts.declaredIdempotentHint);
  return (
    <span className="mt-0.5 flex flex-wrap items-center gap-x-1.5 gap-y-0.5 font-sans text-[11px] text-slate-500">
      <span
        className="whitespace-nowrap"
        title={
          facts.listedBy.length > 0
            ? `idempotentHint as listed by ${facts.listedBy.join(", ")}`
            : "no server's tools/list names this tool"
        }
      >
        idempotentHint:{" "}
        <span
          className={facts.declaredIdempotentHint === null ? "italic text-slate-500" : "font-mono text-slate-700"}
          data-testid="declared-hint"
        >
          {hint}
        </span>
      </span>
      {facts.seen ? null : (
        <span
          className={`whitespace-nowrap rounded px-1.5 py-px ${unbacked ? "bg-amber-200 text-amber-900" : "bg-slate-100 text-slate-600"}`}
          data-testid="never-seen"
          title={
            unbacked
              ? "claims idempotentHint, yet no claim, event or resolution in this window: nothing backs the claim"
              : "no claim, event or resolution in this window"
          }
        >
          never seen
        </span>
      )}
    </span>
  );
}

/**
 * Why Completed may be larger than Executions, said where both figures are: the two count
 * different events of the window (claims made, completions made), and a claim made before the
 * window that completed inside it is a completion only. Named with the rows' own figures when so.
 */
function CountingNote({ rows }: { rows: RiskRow[] }) {
  const more = rows.filter((r) => r.completed > r.executions);
  return (
    <span className="mt-0.5 block text-xs font-normal text-slate-500" data-testid="completed-note">
      Executions are claims made in the window; Completed are completions made in it, also of claims made before it — so
      Completed can be larger
      {more.length > 0
        ? ` (${more
            .slice(0, 2)
            .map(
              (r) =>
                `${r.label}: ${formatCount(r.completed)} completed against ${formatCount(r.executions)} executions`,
            )
            .join("; ")}${more.length > 2 ? "; …" : ""})`
        : ""}
      .
    </span>
  );
}

const column = dataColumns<RiskRow>();
const figure = (title?: string) => ({ headerClassName: th, headerTitle: title, cellClassName: td });
// The writer records no events: one cell for the four event figures, since none of them exists.
const eventSpan = ({ row }: { row: { original: RiskRow } }) => (row.original.eventsRecorded ? 1 : 4);

function riskColumns(firstColumn: string) {
  return column.columns([
    column.accessor("label", {
      id: "label",
      header: firstColumn,
      // The notes under a tool's name may wrap: the table then fits its container instead of scrolling.
      meta: { headerClassName: `${thBase} text-left`, cellClassName: "px-2 py-1.5 text-left font-mono text-xs" },
      cell: ({ row: { original: r } }) => (
        <>
          {r.href ? (
            <a
              className={`whitespace-nowrap underline-offset-2 hover:underline ${r.muted ? "italic text-slate-500" : "text-slate-900"}`}
              href={r.href}
              data-testid="row-label"
            >
              {r.label}
            </a>
          ) : (
            <span className="whitespace-nowrap" data-testid="row-label">
              {r.label}
            </span>
          )}
          {r.tool ? <ToolNotes facts={r.tool} unbacked={unbackedRow(r)} /> : null}
          {r.upstream && r.eventsRecorded ? (
            <span className="mt-0.5 block max-w-64">
              <VerifiedUpstreamNote upstream={r.upstream} />
            </span>
          ) : null}
        </>
      ),
    }),
    column.accessor("stuckNow", {
      id: "stuckNow",
      header: "Stuck now",
      meta: figure("in_progress past the tool's threshold, now"),
      cell: (info) => (
        <span className={info.getValue() > 0 ? "font-semibold text-red-700" : undefined}>
          {info.getValue().toLocaleString("en")}
        </span>
      ),
    }),
    column.accessor("executions", {
      id: "executions",
      header: "Executions",
      meta: figure("claims"),
      cell: (info) => formatCount(info.getValue()),
    }),
    column.accessor("completed", {
      id: "completed",
      header: "Completed",
      meta: figure("completions in the window by writers and by the console, also of claims made before it"),
      cell: ({ row: { original: r } }) =>
        r.completed > r.executions ? (
          <span title={`${formatCount(r.completed)} completions in the window include claims made before it`}>
            {formatCount(r.completed)}
          </span>
        ) : (
          formatCount(r.completed)
        ),
    }),
    column.accessor("outcomeUnknown", {
      id: "outcomeUnknown",
      header: "Unknown",
      meta: figure("outcome unknown: processor timeouts reported to the caller"),
      spanColumns: eventSpan,
      cell: ({ row: { original: r } }) =>
        r.eventsRecorded ? (
          <span className={(r.outcomeUnknown ?? 0) > 0 ? "font-semibold text-amber-700" : undefined}>
            {cell(formatCount(r.outcomeUnknown))}
          </span>
        ) : (
          <>
            <span
              className="block text-center"
              title="this writer records no replay, rejection or outcome-unknown events"
            >
              <Missing text={NOT_RECORDED} />
            </span>
            {/* Where the writer records nothing, what its upstream counted when last verified stands right here. */}
            {r.upstream ? (
              <span className="mt-0.5 block whitespace-normal text-left">
                <VerifiedUpstreamNote upstream={r.upstream} />
              </span>
            ) : null}
          </>
        ),
    }),
    column.accessor("replaysServed", {
      id: "replays",
      header: "Replays",
      meta: figure(),
      cell: (info) => cell(formatCount(info.getValue())),
    }),
    column.accessor("inFlightRejected", {
      id: "rejected",
      header: "Rejected",
      meta: figure("in-flight rejections: repeats while the first call ran"),
      cell: (info) => cell(formatCount(info.getValue())),
    }),
    column.accessor("suppressionRate", {
      id: "suppression",
      header: "Suppression",
      meta: figure(
        `(replays + rejections) / (executions + replays + rejections); a rate over fewer than ${MIN_RATE_CALLS} calls shows its count`,
      ),
      cell: ({ row: { original: r } }) => <RateCell row={r} />,
    }),
    column.display({
      id: "writerLatency",
      header: "Writer p50 / p95",
      meta: figure("writers' time to complete (the console's completions left out), to within 9%"),
      cell: ({ row: { original: r } }) => (
        <span data-testid="writer-latency">
          {formatMs(r.completeP50Ms)} / {formatMs(r.completeP95Ms)}
        </span>
      ),
    }),
    column.display({
      id: "byOperators",
      header: "By operators",
      meta: figure("claims operators resolved (single or bulk), and how long they had waited: p50 / p95"),
      cell: ({ row: { original: r } }) => (
        <ResolvedCell
          count={r.resolvedByOperator}
          p50={r.operatorResolveP50Ms}
          p95={r.operatorResolveP95Ms}
          testId="resolved-by-operators"
        />
      ),
    }),
    column.display({
      id: "byReconciler",
      header: "By reconciler",
      meta: figure("claims the reconciler resolved, and how long they had waited: p50 / p95"),
      cell: ({ row: { original: r } }) => (
        <ResolvedCell
          count={r.resolvedByReconciler}
          p50={r.reconcilerResolveP50Ms}
          p95={r.reconcilerResolveP95Ms}
          testId="resolved-by-reconciler"
        />
      ),
    }),
    column.accessor("sideEffectsPerOperation", {
      id: "effects",
      header: "Effects/op",
      meta: figure("side effects the processor performed per operation (reference)"),
      cell: (info) => cell(formatRatio(info.getValue())),
    }),
  ]);
}

/**
 * Per tool (or tenant) figures, riskiest first: stuck now + outcome unknown, then volume. Event
 * figures of writers that record no events read "not recorded"; side effects without a processor
 * report read "not reported". Every known tool has a row: one with nothing in the window reads
 * "never seen", and one that claims idempotentHint without a key is marked.
 */
export function RiskTable({ rows, caption, firstColumn }: { rows: RiskRow[]; caption: string; firstColumn: string }) {
  const note = <CountingNote rows={rows} />;
  const columns = useMemo(() => riskColumns(firstColumn), [firstColumn]);
  if (rows.length === 0) {
    return (
      <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-500">
        No claims, events or stuck rows in this window.
      </p>
    );
  }
  // A phone gets compact cards (risk-cards.tsx) instead of the table's twelve-line cards.
  return (
    <>
      <DataTable
        columns={columns}
        data={rows}
        getRowId={(r) => r.id}
        testId={`risk-table-${firstColumn}`}
        caption={
          <>
            {caption}
            {note}
          </>
        }
        className="hidden md:block"
        tableClassName="text-[13px]"
        rowAttributes={(r) => ({
          "data-row": r.id,
          "data-risk": r.stuckNow + (r.outcomeUnknown ?? 0) > 0 ? "high" : "low",
          "data-seen": r.tool ? String(r.tool.seen) : undefined,
          className: unbackedRow(r) ? "bg-amber-50" : undefined,
        })}
      />
      <RiskCards rows={rows} caption={caption} note={note} testId={`risk-cards-${firstColumn}`} />
    </>
  );
}
