"use client";

import { useState } from "react";
import type { RecordCheck } from "@/lib/resolve/check-record-with-processor";
import type { ProcessorOutcome } from "@/lib/resolve/processor-check-types";
import { isNobodyToAsk, nobodyToAskAdvice } from "@/lib/resolve/nobody-to-ask";
import { JsonView } from "@/components/ui/json-view";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";

const OUTCOME_TEXT: Record<ProcessorOutcome, { label: string; style: string; meaning: string }> = {
  taken: {
    label: "Taken",
    style: "border-emerald-300 bg-emerald-50 text-emerald-900",
    meaning: "The processor performed it. The customer was charged once; do not submit it again.",
  },
  not_taken: {
    label: "Not taken",
    style: "border-sky-300 bg-sky-50 text-sky-900",
    meaning: "The processor did not perform it. Nothing was charged by this call.",
  },
  unknown: {
    label: "Unknown",
    style: "border-amber-300 bg-amber-50 text-amber-900",
    meaning: "No definite answer: change nothing, and ask again later.",
  },
};

type State =
  | { phase: "idle" }
  | { phase: "asking" }
  | { phase: "answered"; result: RecordCheck; count: number }
  | { phase: "failed"; message: string; count: number };

/**
 * "Ask the processor": a read-only question any role that sees the record may ask. It changes
 * nothing; the answer and the raw evidence behind it are shown as they came. With no processor
 * configured (or no tool recorded) there is nobody to ask: no button, only what can clear it.
 */
export function AskProcessor({
  recordKey,
  tool,
  processor,
  onAnswer,
}: {
  recordKey: string;
  tool: string | null;
  processor: string | null;
  onAnswer?: (result: RecordCheck) => void;
}) {
  if (processor === null)
    return (
      <p
        className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-700"
        data-testid="nobody-to-ask"
      >
        {nobodyToAskAdvice(tool, { asked: false, here: true })}
      </p>
    );
  return <AskButtonAndAnswer recordKey={recordKey} processor={processor} onAnswer={onAnswer} />;
}

function AskButtonAndAnswer({
  recordKey,
  processor,
  onAnswer,
}: {
  recordKey: string;
  processor: string;
  onAnswer?: (result: RecordCheck) => void;
}) {
  const [state, setState] = useState<State>({ phase: "idle" });
  // Each answer (or failure) is a new result: focus moves to it even when it reads the same as the last.
  const [asked, setAsked] = useState(0);

  async function ask() {
    const count = asked + 1;
    setAsked(count);
    setState({ phase: "asking" });
    const answer = await callApi(api.checkRecord, {
      params: { key: recordKey },
      unreachable: "Nothing was changed.",
      accept: (value): value is RecordCheck => typeof value === "object" && value !== null && "check" in value,
    });
    if (!answer.ok) return setState({ phase: "failed", message: answer.message, count });
    setState({ phase: "answered", result: answer.value, count });
    onAnswer?.(answer.value);
  }

  // Once the answer is that nobody can be asked, asking again cannot change it: no button offers to.
  const nobodyToAsk = state.phase === "answered" && isNobodyToAsk(state.result.check);
  return (
    <div>
      <div className="flex flex-wrap items-center gap-3">
        {nobodyToAsk ? null : (
          <Button variant="primary" onClick={() => void ask()} disabled={state.phase === "asking"}>
            {state.phase === "asking" ? "Asking…" : state.phase === "answered" ? "Ask again" : "Ask the processor"}
          </Button>
        )}
        <span className="text-xs text-slate-500">Read-only: {processor}</span>
      </div>
      <ActionResult
        resultKey={state.phase === "answered" || state.phase === "failed" ? state.count : null}
        label="processor answer"
      >
        {state.phase === "failed" ? <p className="mt-3 text-sm text-red-700">{state.message}</p> : null}
        {state.phase === "answered" ? <CheckAnswer result={state.result} /> : null}
      </ActionResult>
    </div>
  );
}

function CheckAnswer({ result }: { result: RecordCheck }) {
  const { check } = result;
  const text = OUTCOME_TEXT[check.outcome];
  return (
    <div
      className={`mt-3 rounded-md border p-3 ${text.style}`}
      data-testid="processor-outcome"
      data-outcome={check.outcome}
    >
      <div className="text-sm">
        <span className="font-semibold">{text.label}</span>
        {" — "}
        <span data-testid="processor-reason">{check.reason}</span>
      </div>
      <p className="mt-1 text-xs opacity-80" data-testid="processor-meaning">
        {isNobodyToAsk(check) ? nobodyToAskAdvice(result.tool) : text.meaning}
      </p>
      {check.receipt !== undefined ? (
        <div className="mt-3">
          <div className="mb-1 text-xs font-medium">Receipt</div>
          <JsonView value={check.receipt} label="processor receipt" />
        </div>
      ) : null}
      <details className="mt-3 text-slate-800">
        <summary className="cursor-pointer text-xs font-medium">
          Evidence: {check.evidence.adapter},{" "}
          {check.evidence.status === null ? "no answer" : `status ${check.evidence.status}`}, {check.evidence.ms} ms
        </summary>
        <div className="mt-2">
          <JsonView value={check.evidence} label="processor evidence" />
        </div>
      </details>
      {result.redactedPaths.length > 0 ? (
        <p className="mt-2 text-xs opacity-80">Masked: {result.redactedPaths.join(", ")}</p>
      ) : null}
    </div>
  );
}
