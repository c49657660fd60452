"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { RecordCheck } from "@/lib/resolve/check-record-with-processor";
import type { RowSnapshot } from "@/lib/resolve/resolution";
import { isReasonLongEnough } from "@/lib/field-rules/reason-length";
import { FORCE_RELEASE_CONFIRMATION } from "@/lib/resolve/resolve-rules";
import { isNobodyToAsk } from "@/lib/resolve/nobody-to-ask";
import type { StuckFilter } from "@/lib/records/stuck-claims";
import { AskProcessor } from "@/components/records-detail/ask-processor";
import { ReasonField } from "@/components/records-detail/reason-field";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { sendResolve } from "@/components/resolve/send-resolve";
import { serializeRecordPageParams } from "@/lib/records/record-page-params";
import { Input } from "@/components/ui/input";

export type ResolvePermissions = { resolve: boolean; release: boolean; forceRelease: boolean };

type Props = {
  recordKey: string;
  tool: string | null;
  /** How the processor is asked, or null: nobody to ask, so the forced release is open without asking. */
  processor: string | null;
  status: string;
  isStuck: boolean;
  threshold: string;
  /** The row's version (updated_at with microseconds) when the page was rendered: the compare-and-set's expectation. */
  version: string | null;
  permissions: ResolvePermissions;
  /** The Stuck filter the user came from: the next stuck claim offered after a resolve is within it. */
  within: StuckFilter;
};

type Result =
  | { kind: "idle" }
  | { kind: "sending"; action: string }
  | { kind: "done"; message: string }
  | { kind: "conflict"; message: string; current: RowSnapshot | null | undefined }
  | { kind: "refused"; message: string };

/**
 * The operator's panel: ask the processor, then Complete (it says taken: store its receipt) or
 * Release (it says not taken: delete the claim, snapshot in the audit log), with a required
 * reason. Buttons follow the last answer; the server asks again and decides for itself. An admin
 * may force a release when the answer is unknown — at once when there is nobody to ask — after
 * typing "force release".
 */
export function ResolvePanel({
  recordKey,
  tool,
  processor,
  status,
  isStuck,
  threshold,
  version,
  permissions,
  within,
}: Props) {
  const router = useRouter();
  const [check, setCheck] = useState<RecordCheck | null>(null);
  const [reason, setReason] = useState("");
  const [confirm, setConfirm] = useState("");
  const [result, setResult] = useState<Result>({ kind: "idle" });
  // Each answer is a new result for the live region (two conflicts in a row are two results).
  const [resultCount, setResultCount] = useState(0);

  // Nobody to ask (no processor configured, or no tool recorded): the answer is unknown without asking.
  const nobodyToAsk = processor === null || (check !== null && isNobodyToAsk(check.check));
  const outcome = nobodyToAsk ? "unknown" : (check?.check.outcome ?? null);
  const actionable = status === "in_progress" && isStuck && permissions.resolve;
  const reasonOk = isReasonLongEnough(reason);
  const busy = result.kind === "sending";

  async function send(action: "complete" | "release", force = false) {
    setResult({ kind: "sending", action });
    const attempt = await sendResolve(recordKey, {
      action,
      reason,
      version,
      nextStuckWithin: within,
      ...(force ? { force: { confirm } } : {}),
    });
    if (attempt.kind === "resolved") {
      setResult({
        kind: "done",
        message:
          action === "complete"
            ? "Completed with the processor's receipt."
            : "Released: the claim is deleted; its snapshot is in the audit log.",
      });
      // The page itself confirms, from the audit entry: a released row no longer exists, so the
      // confirmation cannot live in this panel (docs/architecture.md#states).
      router.replace(
        serializeRecordPageParams(`/records/${recordKey}`, {
          resolved: attempt.resolved.auditId,
          stuckTenant: within.tenant,
          stuckTool: within.tool,
        }),
      );
    } else {
      setResult(attempt);
    }
    setResultCount((n) => n + 1);
  }

  // Nobody to ask: the answer above already says what can clear it (configuration, or a forced release).
  const disabledWhy = nobodyToAsk
    ? `With no processor to ask, completing or releasing would be a guess: see ${check ? "the answer above" : "above"}.`
    : !check
      ? "Ask the processor first: the buttons follow its answer."
      : outcome === "unknown"
        ? "The processor's answer is unknown: change nothing, ask again later."
        : null;

  return (
    <div className="space-y-4">
      <AskProcessor recordKey={recordKey} tool={tool} processor={processor} onAnswer={setCheck} />
      {status !== "in_progress" ? null : !isStuck ? (
        <p
          className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-600"
          data-testid="resolve-not-stuck"
        >
          Not stuck yet: within its threshold ({threshold}) a live call may still be running, so there is nothing to
          resolve.
        </p>
      ) : (
        <div className="rounded-md border border-slate-200 p-3" data-testid="resolve-panel">
          <h3 className="mb-2 text-sm font-semibold text-slate-800">Resolve this claim</h3>
          <ReasonField
            value={reason}
            onChange={setReason}
            placeholder="e.g. customer ticket 4411: processor timed out, it says the charge succeeded"
          />
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <Button
              variant="good"
              disabled={!actionable || outcome !== "taken" || !reasonOk || busy}
              onClick={() => void send("complete")}
              data-testid="resolve-complete"
            >
              {result.kind === "sending" && result.action === "complete" ? "Completing…" : "Complete with receipt"}
            </Button>
            {permissions.release ? (
              <Button
                variant="info"
                disabled={!actionable || outcome !== "not_taken" || !reasonOk || busy}
                onClick={() => void send("release")}
                data-testid="resolve-release"
              >
                {result.kind === "sending" && result.action === "release" ? "Releasing…" : "Release the claim"}
              </Button>
            ) : null}
            <span className="text-xs text-slate-500">
              {disabledWhy ?? (!reasonOk ? "Say why, in a few words." : null)}
            </span>
          </div>

          {permissions.forceRelease && outcome === "unknown" ? (
            <div
              className="mt-3 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-900"
              data-testid="force-release"
            >
              <p className="mb-2 text-xs">
                Admins only. Releasing without &quot;not taken&quot; evidence lets the next retry run again: if the side
                effect did happen, it happens twice (a second charge, a second e-mail). Type{" "}
                <span className="font-mono font-semibold">{FORCE_RELEASE_CONFIRMATION}</span> to confirm.
              </p>
              <div className="flex flex-wrap items-center gap-2">
                <Input
                  value={confirm}
                  onChange={(e) => setConfirm(e.target.value)}
                  aria-label="Type force release to confirm"
                  className="border-red-300"
                />
                <Button
                  variant="danger"
                  disabled={confirm !== FORCE_RELEASE_CONFIRMATION || !reasonOk || busy}
                  onClick={() => void send("release", true)}
                >
                  Force release
                </Button>
                {/* What the button waits for, as the resolve buttons above say theirs. */}
                <span className="text-xs" data-testid="force-release-why">
                  {!reasonOk
                    ? "Write the reason above first."
                    : confirm !== FORCE_RELEASE_CONFIRMATION
                      ? `Type ${FORCE_RELEASE_CONFIRMATION} to confirm.`
                      : null}
                </span>
              </div>
            </div>
          ) : null}
        </div>
      )}

      <ActionResult
        resultKey={result.kind === "idle" || result.kind === "sending" ? null : resultCount}
        label="resolution"
      >
        {result.kind === "done" ? (
          <p
            className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-900"
            data-testid="resolve-done"
          >
            {result.message}
          </p>
        ) : null}
        {result.kind === "refused" ? (
          <p
            className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800"
            data-testid="resolve-refused"
          >
            {result.message}
          </p>
        ) : null}
        {result.kind === "conflict" ? (
          <div
            className="rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-amber-950"
            data-testid="resolve-conflict"
          >
            <p className="font-semibold">Conflict: nothing was overwritten.</p>
            <p className="mt-1">{result.message}</p>
            <p className="mt-1 text-xs">
              Now:{" "}
              {result.current === undefined
                ? "see the record"
                : result.current === null
                  ? "the record no longer exists (released)"
                  : `status ${result.current.status}, updated ${result.current.updatedAt ?? "never"}`}
            </p>
            <Button
              variant="secondary"
              size="sm"
              onClick={() => router.refresh()}
              className="mt-2 border-amber-500 text-sm hover:bg-amber-100"
            >
              Reload the record
            </Button>
          </div>
        ) : null}
      </ActionResult>
    </div>
  );
}
