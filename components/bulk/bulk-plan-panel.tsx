"use client";

import { Link } from "@/components/ui/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { auditHref } from "@/lib/audit/audit-search-params";
import type { NextStuckClaim, StuckFilter } from "@/lib/records/stuck-claims";
import type { BulkPlan, BulkRowResult, PlannedRow } from "@/lib/resolve/bulk-plan";
import { isReasonLongEnough } from "@/lib/field-rules/reason-length";
import { nobodyToAskAdvice } from "@/lib/resolve/nobody-to-ask";
import { BulkPlanTable } from "@/components/bulk/bulk-plan-table";
import { NextStuckLink } from "@/components/resolve/next-stuck-link";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Input } from "@/components/ui/input";

export type BulkPlanRequest = { keys: string[] } | { filter: { tenant: string | null; tool: string | null } };

/**
 * Rows per apply request. The page applies a plan in small batches rather than reading a stream:
 * each batch is an ordinary JSON request (no proxy buffering, nothing half-read), progress is
 * simply "batches answered", and a dropped connection costs one batch, whose rows are reported
 * as errors — the audit log holds whatever the server did.
 */
const APPLY_BATCH = 10;

type Phase =
  | { kind: "planning" }
  | { kind: "planned"; plan: BulkPlan }
  | { kind: "applying"; plan: BulkPlan; done: number; total: number }
  | { kind: "applied"; plan: BulkPlan }
  | { kind: "failed"; message: string };

/** Dry-run plan → reason → apply in batches with a progress bar → results row by row, in a modal dialog. */
export function BulkPlanPanel({
  request,
  within,
  mayForceRelease,
  onClose,
}: {
  request: BulkPlanRequest;
  /** The Stuck filter the plan was made from: the next stuck claim offered after the apply is in it. */
  within: StuckFilter;
  /** May force a release (admins): rows nobody could be asked about link to their record's forced release. */
  mayForceRelease: boolean;
  onClose: () => void;
}) {
  const router = useRouter();
  const [phase, setPhase] = useState<Phase>({ kind: "planning" });
  const [results, setResults] = useState<Map<string, BulkRowResult>>(new Map());
  const [reason, setReason] = useState("");
  const [now, setNow] = useState(() => new Date());
  const [applied, setApplied] = useState<{ startedAt: string; nextStuck: NextStuckClaim | null } | null>(null);

  useEffect(() => {
    let cancelled = false;
    void callApi(api.bulkPlan, { json: request }).then((answer) => {
      if (cancelled) return;
      setNow(new Date());
      setPhase(answer.ok ? { kind: "planned", plan: answer.value } : { kind: "failed", message: answer.message });
    });
    return () => {
      cancelled = true;
    };
  }, [request]);

  async function apply(plan: BulkPlan) {
    const actionable = plan.rows.filter(
      (row): row is PlannedRow & { proposed: "complete" | "release" } => row.proposed !== "leave",
    );
    const startedAt = new Date().toISOString();
    let nextStuck: NextStuckClaim | null = null;
    const collected = new Map<string, BulkRowResult>();
    setPhase({ kind: "applying", plan, done: 0, total: actionable.length });
    for (let i = 0; i < actionable.length; i += APPLY_BATCH) {
      const batch = actionable.slice(i, i + APPLY_BATCH);
      const answer = await callApi(api.bulkApply, {
        json: {
          reason,
          nextStuckWithin: within,
          rows: batch.map((row) => ({ key: row.key, action: row.proposed, expectedUpdatedAt: row.expectedUpdatedAt })),
        },
      });
      if (answer.ok) nextStuck = answer.value.nextStuck;
      for (const row of batch) {
        const result = answer.ok
          ? answer.value.results.find((r) => r.key === row.key)
          : {
              key: row.key,
              ref: row.ref,
              action: row.proposed,
              result: "error" as const,
              outcome: null,
              message: `Not applied: ${answer.message}`,
            };
        if (result) collected.set(row.key, result);
      }
      setResults(new Map(collected));
      setPhase({
        kind: "applying",
        plan,
        done: Math.min(i + APPLY_BATCH, actionable.length),
        total: actionable.length,
      });
    }
    setApplied({ startedAt, nextStuck });
    setPhase({ kind: "applied", plan });
    router.refresh(); // the stuck list behind the plan loses the rows just resolved
  }

  const summaryKey =
    phase.kind === "planned" || phase.kind === "applied" || phase.kind === "failed" ? phase.kind : null;
  return (
    <ModalDialog
      title={
        phase.kind === "applied"
          ? "Bulk plan, applied"
          : phase.kind === "applying"
            ? "Bulk plan, applying…"
            : "Bulk plan (dry run)"
      }
      description={describePhase(phase, results)}
      // Half-applied: stay until every batch answered.
      busy={phase.kind === "applying"}
      onClose={onClose}
      testId="bulk-plan"
      closeTestId="bulk-close"
      phase={phase.kind}
      className="max-w-6xl"
    >
      <div className="p-4">
        {phase.kind === "planning" ? <p className="animate-pulse text-sm text-slate-700">Planning…</p> : null}
        <ActionResult resultKey={summaryKey} label="bulk plan summary" className="mb-3">
          {phase.kind === "failed" ? <p className="text-sm text-red-700">{phase.message}</p> : null}
          {phase.kind === "planned" || phase.kind === "applying" || phase.kind === "applied" ? (
            <PlanSummary plan={phase.plan} mayForceRelease={mayForceRelease} />
          ) : null}
          {phase.kind === "applied" && applied ? (
            <AppliedSummary
              results={results}
              startedAt={applied.startedAt}
              nextStuck={applied.nextStuck}
              within={within}
              now={now}
            />
          ) : null}
        </ActionResult>

        {phase.kind === "planned" || phase.kind === "applying" || phase.kind === "applied" ? (
          <>
            {phase.kind === "planned" ? (
              <ApplyForm
                plan={phase.plan}
                reason={reason}
                setReason={setReason}
                onApply={() => void apply(phase.plan)}
              />
            ) : (
              <Progress
                done={phase.kind === "applying" ? phase.done : results.size}
                total={phase.kind === "applying" ? phase.total : results.size}
                finished={phase.kind === "applied"}
              />
            )}
            <BulkPlanTable
              rows={phase.plan.rows}
              results={results}
              now={now}
              mayForceRelease={mayForceRelease}
              within={within}
            />
          </>
        ) : null}
      </div>
    </ModalDialog>
  );
}

/**
 * The dialog's sentence under its title, true to the phase: a dry run that changed nothing, an
 * apply under way, or what the apply did (never "nothing changes until you apply" after it).
 */
function describePhase(phase: Phase, results: Map<string, BulkRowResult>): string | null {
  if (phase.kind === "planning") return "Asking each claim's processor what happened. Nothing is changed by a plan.";
  if (phase.kind === "failed") return null;
  const scope = phase.plan.scope;
  if (phase.kind === "planned")
    return `Dry run over ${scope}: each claim's processor was asked where one is configured. Nothing changes until you apply.`;
  if (phase.kind === "applying")
    return `Applying the plan over ${scope}: each row is asked again, and changes only if it is still as planned.`;
  const all = [...results.values()];
  const ok = all.filter((r) => r.result === "ok");
  const completed = ok.filter((r) => r.action === "complete").length;
  const notApplied = all.length - ok.length;
  const left = phase.plan.totals.leave;
  return `Applied over ${scope}: ${completed} completed, ${ok.length - completed} released${notApplied > 0 ? `, ${notApplied} not applied (see each row)` : ""}; ${left} left as ${left === 1 ? "it was" : "they were"}. The audit log holds each change.`;
}

/** Counts by proposed action, and what will be skipped and why (and what can help when asking cannot). */
function PlanSummary({ plan, mayForceRelease }: { plan: BulkPlan; mayForceRelease: boolean }) {
  const skipped = new Map<string, number>();
  for (const row of plan.rows) {
    if (row.proposed !== "leave") continue;
    const why = row.nobodyToAsk
      ? `${row.reason}. ${nobodyToAskAdvice(row.tool)}${mayForceRelease ? " Each such row below links to its forced release." : ""}`
      : row.outcome === "unknown"
        ? "the processor's answer is unknown: change nothing, ask again later"
        : row.reason;
    skipped.set(why, (skipped.get(why) ?? 0) + 1);
  }
  return (
    <div className="text-sm" data-testid="bulk-plan-summary">
      <p className="flex flex-wrap gap-x-4 gap-y-1" data-testid="bulk-plan-totals">
        <span>
          <strong className="tabular-nums">{plan.totals.complete}</strong> to complete
        </span>
        <span>
          <strong className="tabular-nums">{plan.totals.release}</strong> to release
        </span>
        <span>
          <strong className="tabular-nums">{plan.totals.leave}</strong> left as they are
        </span>
        {plan.truncated ? (
          <span className="text-amber-700" data-testid="bulk-plan-truncated">
            {plan.matched !== null
              ? `${(plan.matched - plan.rows.length).toLocaleString("en")} newer matching claims are not in this plan: plan again after applying`
              : "more claims matched than a plan takes"}
          </span>
        ) : null}
      </p>
      {skipped.size > 0 ? (
        <ul className="mt-1 list-disc pl-5 text-xs text-slate-700" data-testid="bulk-plan-skipped">
          {[...skipped].map(([why, count]) => (
            <li key={why}>
              {count} skipped: {why}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** What the apply did, by result, with the audit entries it wrote and the next stuck claim. */
function AppliedSummary({
  results,
  startedAt,
  nextStuck,
  within,
  now,
}: {
  results: Map<string, BulkRowResult>;
  startedAt: string;
  nextStuck: NextStuckClaim | null;
  within: StuckFilter;
  now: Date;
}) {
  const all = [...results.values()];
  const ok = all.filter((r) => r.result === "ok");
  const count = (result: BulkRowResult["result"]) => all.filter((r) => r.result === result).length;
  const completed = ok.filter((r) => r.action === "complete").length;
  const released = ok.length - completed;
  const only = ok.length === 1 ? ok[0]?.auditId : undefined;
  return (
    <div
      className="mt-3 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-950"
      data-testid="bulk-apply-totals"
    >
      <p className="font-medium">
        Applied: {completed} completed with the processor&apos;s receipt, {released} released
        {released > 0 ? ` (the next retry will execute ${released === 1 ? "it" : "them"} again)` : ""};{" "}
        {count("conflict")} conflict, {count("changed_outcome")} answer changed, {count("error")} error.
      </p>
      <ul className="mt-2 flex flex-wrap gap-x-5 gap-y-1">
        <li>
          <Link
            href={only ? auditHref({ id: only }) : auditHref({ from: startedAt })}
            className="underline"
            data-testid="bulk-audit-link"
          >
            {only ? `Audit entry #${only}` : "The audit log since this apply"}
          </Link>
        </li>
        <li>
          <NextStuckLink nextStuck={nextStuck} now={now} within={within} />
        </li>
      </ul>
    </div>
  );
}

function ApplyForm({
  plan,
  reason,
  setReason,
  onApply,
}: {
  plan: BulkPlan;
  reason: string;
  setReason: (value: string) => void;
  onApply: () => void;
}) {
  const actionable = plan.totals.complete + plan.totals.release;
  const reasonOk = isReasonLongEnough(reason);
  return (
    <div className="mb-3 flex flex-wrap items-end gap-3">
      <label className="flex min-w-72 flex-1 flex-col gap-0.5 text-xs font-medium text-slate-600">
        Reason (goes into every audit row)
        <Input
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          name="bulk-reason"
          placeholder="e.g. processor timeouts during last night's incident"
        />
      </label>
      <Button variant="primary" onClick={onApply} disabled={actionable === 0 || !reasonOk} data-testid="bulk-apply">
        Apply {actionable} action{actionable === 1 ? "" : "s"}
      </Button>
      <p className="w-full text-xs text-slate-500">
        {actionable === 0
          ? "Nothing to apply: every row is left as it is."
          : "Each row is asked again before it changes, and changes only if it still is as planned (same version, same answer)."}
      </p>
    </div>
  );
}

function Progress({ done, total, finished }: { done: number; total: number; finished: boolean }) {
  const percent = total === 0 ? 100 : Math.round((done / total) * 100);
  return (
    <div className="mb-3" data-testid="bulk-progress" data-done={finished ? "true" : undefined}>
      <div className="mb-1 text-xs text-slate-600">
        {finished ? `Applied: ${done} of ${total} rows answered.` : `Applying… ${done} of ${total}`}
      </div>
      <div
        className="h-2 w-full overflow-hidden rounded bg-slate-200"
        role="progressbar"
        aria-label="Rows answered"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
      >
        <div
          className={`h-full ${finished ? "bg-emerald-600" : "bg-slate-800"} transition-all`}
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}
