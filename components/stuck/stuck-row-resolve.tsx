"use client";

import { Link } from "@/components/ui/link";
import { useState } from "react";
import { isReasonLongEnough } from "@/lib/field-rules/reason-length";
import type { StuckFilter } from "@/lib/records/stuck-claims";
import type { RecordCheck } from "@/lib/resolve/check-record-with-processor";
import type { ProcessorOutcome } from "@/lib/resolve/processor-check-types";
import { isNobodyToAsk } from "@/lib/resolve/nobody-to-ask";
import { NobodyToAskNote } from "@/components/resolve/nobody-to-ask-note";
import { recordHrefFromStuck } from "@/lib/records/record-page-params";
import { sendResolve, type ResolveAttempt } from "@/components/resolve/send-resolve";
import { ActionResult } from "@/components/ui/action-result";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Input } from "@/components/ui/input";

const OUTCOME: Record<ProcessorOutcome, { label: string; tone: BadgeTone }> = {
  taken: { label: "Taken", tone: "good" },
  not_taken: { label: "Not taken", tone: "info" },
  unknown: { label: "Unknown", tone: "warn" },
};

type State =
  | { phase: "idle" }
  | { phase: "asking" }
  | { phase: "answered"; check: RecordCheck }
  | { phase: "sending"; check: RecordCheck }
  | { phase: "failed"; check: RecordCheck | null; message: string; conflict: boolean };

type Props = {
  claim: { key: string; ref: string; tool: string | null };
  /** Resolves from the row (operators, admins); false: asks only, and says who can act on the answer (viewers). */
  mayResolve: boolean;
  /** The row's version when the list was rendered: the compare-and-set's expectation, as on the record page. */
  version: string | null;
  mayRelease: boolean;
  /** May force a release (admins): an answer nobody could give links to the record's forced release. */
  mayForceRelease: boolean;
  /** The claim's tool has a processor to ask; if not, the row says so instead of offering to ask. */
  askable: boolean;
  /** The list's filter: the next stuck claim the confirmation offers is in it. */
  within: StuckFilter;
  /** A resolve went through: the list shows the confirmation (this row is about to disappear). */
  onResolved: (attempt: Extract<ResolveAttempt, { kind: "resolved" }>) => void;
};

/**
 * One stuck row's way to its end without leaving the list: ask the processor, read its answer
 * here, then complete or release with a reason — the record page's own API calls (the check and
 * the compare-and-set resolve), nothing of its own. An unknown answer offers only the record page,
 * where an admin may force a release; so does a claim nobody can be asked about, without asking.
 */
export function StuckRowResolve(props: Props) {
  if (!props.askable)
    return (
      <div className="min-w-0 text-xs text-slate-700 md:min-w-64" data-testid="row-resolve" data-key={props.claim.key}>
        <NobodyToAskNote
          recordKey={props.claim.key}
          tool={props.claim.tool}
          mayForceRelease={props.mayForceRelease}
          within={props.within}
          asked={false}
        />
      </div>
    );
  return <AskAndResolve {...props} />;
}

function AskAndResolve({ claim, mayResolve, version, mayRelease, mayForceRelease, within, onResolved }: Props) {
  const [state, setState] = useState<State>({ phase: "idle" });
  const [answers, setAnswers] = useState(0);
  const [reason, setReason] = useState("");

  async function ask() {
    setState({ phase: "asking" });
    const answer = await callApi(api.checkRecord, {
      params: { key: claim.key },
      unreachable: "Nothing was changed.",
      accept: (value): value is RecordCheck => typeof value === "object" && value !== null && "check" in value,
    });
    setAnswers((n) => n + 1);
    setState(
      answer.ok
        ? { phase: "answered", check: answer.value }
        : { phase: "failed", check: null, message: answer.message, conflict: false },
    );
  }

  async function resolve(check: RecordCheck, action: "complete" | "release") {
    setState({ phase: "sending", check });
    const attempt = await sendResolve(claim.key, { action, reason, version, nextStuckWithin: within });
    if (attempt.kind === "resolved") return onResolved(attempt);
    setAnswers((n) => n + 1);
    setState({ phase: "failed", check, message: attempt.message, conflict: attempt.kind === "conflict" });
  }

  const check =
    state.phase === "answered" || state.phase === "sending" || state.phase === "failed" ? state.check : null;
  const outcome = check?.check.outcome ?? null;
  const action = !mayResolve
    ? null
    : outcome === "taken"
      ? "complete"
      : outcome === "not_taken" && mayRelease
        ? "release"
        : null;
  const reasonId = `reason-${claim.key}`;

  // Nobody to ask: asking again cannot change the answer, so no button offers to (the note says what can).
  const nobodyToAsk = outcome === "unknown" && check !== null && isNobodyToAsk(check.check);

  return (
    <div className="flex min-w-0 flex-col gap-2 md:min-w-64" data-testid="row-resolve" data-key={claim.key}>
      {nobodyToAsk ? null : (
        <Button
          variant={check ? "secondary" : "primary"}
          size="sm"
          className="self-start"
          onClick={() => void ask()}
          disabled={state.phase === "asking" || state.phase === "sending"}
          aria-label={`${check ? "Ask again" : "Ask the processor"} about ${claim.ref}`}
          data-testid="row-ask"
        >
          {state.phase === "asking" ? "Asking…" : check ? "Ask again" : "Ask the processor"}
        </Button>
      )}
      <ActionResult resultKey={answers === 0 ? null : answers} label={`processor answer for ${claim.ref}`}>
        {check ? (
          <div
            className="min-w-0 text-xs text-slate-700 [overflow-wrap:anywhere]"
            data-testid="row-answer"
            data-outcome={check.check.outcome}
          >
            <Badge tone={OUTCOME[check.check.outcome].tone}>{OUTCOME[check.check.outcome].label}</Badge>{" "}
            {check.check.reason}
            {nobodyToAsk ? (
              <NobodyToAskNote
                recordKey={claim.key}
                tool={claim.tool}
                mayForceRelease={mayForceRelease}
                within={within}
                asked
              />
            ) : !mayResolve && outcome !== "unknown" ? (
              <p className="mt-1" data-testid="row-operator-note">
                An operator or admin can {outcome === "taken" ? "complete" : "release"} it:{" "}
                <Link href={recordHrefFromStuck(claim.key, within)} className="underline">
                  open the record
                </Link>{" "}
                to copy its link for them.
              </p>
            ) : outcome === "unknown" ? (
              <p className="mt-1">
                No definite answer: change nothing, ask again later
                {" — or "}
                <Link href={recordHrefFromStuck(claim.key, within)} className="underline">
                  open the record
                </Link>
                .
              </p>
            ) : null}
          </div>
        ) : null}
        {state.phase === "failed" ? (
          <p
            className={`mt-1 rounded border p-2 text-xs ${state.conflict ? "border-amber-400 bg-amber-50 text-amber-950" : "border-red-300 bg-red-50 text-red-800"}`}
            data-testid={state.conflict ? "row-conflict" : "row-refused"}
          >
            {state.conflict ? <strong>Conflict: nothing was overwritten. </strong> : null}
            {state.message}
            {state.conflict ? (
              <>
                {" "}
                <Link href={recordHrefFromStuck(claim.key, within)} className="underline">
                  See the record now
                </Link>
              </>
            ) : null}
          </p>
        ) : null}
      </ActionResult>
      {check && action && !(state.phase === "failed" && state.conflict) ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (isReasonLongEnough(reason)) void resolve(check, action);
          }}
        >
          <label htmlFor={reasonId} className="sr-only">
            Reason for {claim.ref} (kept in the audit log)
          </label>
          <Input
            id={reasonId}
            name="row-reason"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Reason, for the audit log"
            className="w-56 min-w-0 max-w-full text-xs"
            data-testid="row-reason"
          />
          <Button
            type="submit"
            variant={action === "complete" ? "good" : "info"}
            size="sm"
            disabled={!isReasonLongEnough(reason) || state.phase === "sending"}
            data-testid={action === "complete" ? "row-complete" : "row-release"}
          >
            {state.phase === "sending"
              ? action === "complete"
                ? "Completing…"
                : "Releasing…"
              : action === "complete"
                ? "Complete with receipt"
                : "Release the claim"}
          </Button>
        </form>
      ) : null}
    </div>
  );
}
