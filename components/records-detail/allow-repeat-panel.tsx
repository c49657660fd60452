"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { AllowRepeatAnswer } from "@/lib/api/contracts/answers";
import { isReasonLongEnough } from "@/lib/field-rules/reason-length";
import { repeatConsequence } from "@/lib/resolve/allow-repeat-words";
import { serializeRecordPageParams } from "@/lib/records/record-page-params";
import { ReasonField } from "@/components/records-detail/reason-field";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Checkbox } from "@/components/ui/checkbox";

type Result = { kind: "idle" } | { kind: "sending" } | { kind: "refused"; conflict: boolean; message: string };

/**
 * An operator ends a completed record's deduplication so a customer can buy the same thing again:
 * a reason, a confirmation that names the consequence, then the row is deleted (its snapshot in the
 * audit log). The page confirms from the audit entry afterwards, as it does after a release.
 */
export function AllowRepeatPanel({
  recordKey,
  tool,
  version,
}: {
  recordKey: string;
  tool: string | null;
  /** The row's version when the page was rendered: the compare-and-set's expectation. */
  version: string | null;
}) {
  const router = useRouter();
  const confirmId = useId();
  const [reason, setReason] = useState("");
  const [confirmed, setConfirmed] = useState(false);
  const [result, setResult] = useState<Result>({ kind: "idle" });
  const [resultCount, setResultCount] = useState(0);
  const consequence = repeatConsequence(tool);
  const busy = result.kind === "sending";
  const reasonOk = isReasonLongEnough(reason);

  async function send() {
    setResult({ kind: "sending" });
    const answer = await callApi(api.allowRepeat, {
      params: { key: recordKey },
      json: { reason, expectedUpdatedAt: version },
      unreachable: "Nothing was changed.",
      accept: (value): value is AllowRepeatAnswer => typeof value === "object" && value !== null && "auditId" in value,
    });
    if (answer.ok) {
      // The row is gone: the page itself says what happened, from the audit entry.
      router.replace(serializeRecordPageParams(`/records/${recordKey}`, { resolved: answer.value.auditId }));
      return;
    }
    setResult({ kind: "refused", conflict: answer.status === 409, message: answer.message });
    setResultCount((n) => n + 1);
  }

  return (
    <div className="space-y-3" data-testid="allow-repeat-panel">
      <p className="text-sm text-slate-600">
        This call completed, so an identical call now receives its stored response instead of running. When the customer
        means to do it again (buy the same thing twice), end its deduplication: the row is deleted, its snapshot kept in
        the audit log.
      </p>
      <ReasonField
        value={reason}
        onChange={setReason}
        placeholder="e.g. ticket 5120: the customer orders a second, identical gift card"
      />
      <label
        htmlFor={confirmId}
        className="flex items-start gap-2 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950"
      >
        <Checkbox
          id={confirmId}
          checked={confirmed}
          onChange={(e) => setConfirmed(e.target.checked)}
          className="mt-0.5 size-auto"
          data-testid="allow-repeat-confirm"
        />
        <span>
          I understand: <strong>{consequence}</strong>.
        </span>
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <Button
          variant="danger"
          disabled={!reasonOk || !confirmed || busy}
          onClick={() => void send()}
          data-testid="allow-repeat-submit"
        >
          {busy ? "Allowing…" : "Allow a repeat"}
        </Button>
        <span className="text-xs text-slate-500">
          {!reasonOk ? "Say why, in a few words." : !confirmed ? "Confirm the consequence first." : null}
        </span>
      </div>
      <ActionResult resultKey={result.kind === "refused" ? resultCount : null} label="allow a repeat">
        {result.kind === "refused" ? (
          <div
            className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800"
            data-testid="allow-repeat-refused"
          >
            <p>{result.message}</p>
            {result.conflict ? (
              <Button variant="secondary" size="sm" onClick={() => router.refresh()} className="mt-2">
                Reload the record
              </Button>
            ) : null}
          </div>
        ) : null}
      </ActionResult>
    </div>
  );
}
