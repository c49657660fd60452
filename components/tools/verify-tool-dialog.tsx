"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import type { ToolVerificationResult } from "@/lib/annotations/tool-verification-types";
import type { ToolsVerifyAnswer } from "@/lib/api/contracts/answers";
import { parseArgumentsText, VERIFY_CONCURRENCY_CHOICES } from "@/lib/annotations/verification-arguments-text";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { ModalDialog } from "@/components/ui/modal-dialog";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { argumentsSkeleton } from "@/lib/annotations/input-schema-fields";
import { InputSchemaPanel } from "./input-schema-panel";
import { VerificationResult } from "./verification-result";
import { Select } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";

type Phase =
  | { kind: "editing" }
  | { kind: "running" }
  | { kind: "done"; run: ToolVerificationResult; auditId: string | null; count: number }
  | { kind: "refused"; message: string; refused: boolean; count: number };

function isVerificationAnswer(value: unknown): value is ToolsVerifyAnswer & { verification: ToolVerificationResult } {
  const run = (value as { verification?: { verdict?: unknown; evidence?: unknown } } | null)?.verification;
  return typeof run?.verdict === "string" && typeof run.evidence === "object" && run.evidence !== null;
}

/**
 * The double-call test of one tool, in a modal dialog: the arguments as JSON, how many calls at once,
 * a warning that every call is real, Run; then the run's verdict and evidence where the form's answer
 * appears (focused, announced). The page behind refreshes, so the tool's row shows the new latest run.
 */
export function VerifyToolDialog({
  server,
  tool,
  inputSchema,
  onClose,
}: {
  server: string;
  tool: string;
  /** The tool's input schema from its latest listing, null when it sent none. */
  inputSchema: Record<string, unknown> | null;
  onClose: () => void;
}) {
  const router = useRouter();
  const argumentsField = useRef<HTMLTextAreaElement>(null);
  const ids = useId();
  const [argumentsText, setArgumentsText] = useState("{}");
  const [placeholders, setPlaceholders] = useState<string[] | null>(null);
  const [concurrency, setConcurrency] = useState(2);
  const [inputError, setInputError] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: "editing" });

  async function run() {
    const parsed = parseArgumentsText(argumentsText);
    if (!parsed.ok) {
      setInputError(parsed.message);
      return;
    }
    setInputError(null);
    setPhase({ kind: "running" });
    const answer = await callApi(api.toolsVerify, {
      json: { server, tool, arguments: parsed.value, concurrency },
      accept: isVerificationAnswer,
      unreachable: "The test may or may not have run: the audit log will say.",
    });
    setPhase((last) => {
      const count = ("count" in last ? last.count : 0) + 1;
      return answer.ok
        ? {
            kind: "done",
            run: answer.value.verification,
            auditId: typeof answer.value.auditId === "string" ? answer.value.auditId : null,
            count,
          }
        : // A 4xx is a refusal before any call; anything else may have called the server.
          { kind: "refused", message: answer.message, refused: answer.status !== null && answer.status < 500, count };
    });
    if (answer.ok) router.refresh(); // the tool's row shows this run as its latest
  }

  const running = phase.kind === "running";
  return (
    <ModalDialog
      title={
        <>
          Verify <span className="break-all font-mono">{tool}</span>
        </>
      }
      description={
        <>
          The double-call test on <span className="font-mono">{server}</span>: the same call several times at once, then
          once more; the answers, the table and the upstream must show one side effect.
        </>
      }
      // The calls are out: stay until they answer.
      busy={running}
      onClose={onClose}
      initialFocus={argumentsField}
      testId="verify-dialog"
      closeTestId="verify-close"
      phase={phase.kind}
      className="max-w-3xl"
    >
      <form
        className="space-y-3 p-4"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <p
          className="rounded-md border border-amber-300 bg-amber-50 p-2 text-xs text-amber-950"
          data-testid="verify-warning"
        >
          <strong>Real side effects.</strong> This calls {tool} up to {concurrency + 1} times with these arguments on{" "}
          {server}: {concurrency} at once, then 1 more unless those already executed more than once. Whatever the tool
          does — a charge, a shipment, an e-mail — happens for real on that server&apos;s upstream, once if the hint is
          true and more often if it is not. idem.config.json marks this server for verification (staging); use arguments
          that are safe there, and new ones for each run: a call repeated within its key&apos;s bucket (15 minutes by
          default) is answered from the first run&apos;s row and tests nothing.
        </p>
        <InputSchemaPanel
          tool={tool}
          schema={inputSchema}
          placeholders={placeholders}
          onFill={() => {
            const { args, placeholders: empty } = argumentsSkeleton(inputSchema);
            setArgumentsText(JSON.stringify(args, null, 2));
            setPlaceholders(empty);
            argumentsField.current?.focus();
          }}
        />
        <label className="flex flex-col gap-0.5 text-xs font-medium text-slate-700">
          Arguments (JSON object)
          <Textarea
            ref={argumentsField}
            name="verify-arguments"
            value={argumentsText}
            onChange={(e) => {
              setArgumentsText(e.target.value);
              setPlaceholders(null); // the note is about the fill; once edited, the values are the admin's
            }}
            rows={5}
            spellCheck={false}
            aria-invalid={inputError ? true : undefined}
            aria-describedby={inputError ? `${ids}-error` : `${ids}-arguments-hint`}
            className="font-mono text-xs"
          />
          <span id={`${ids}-arguments-hint`} className="font-normal text-slate-500">
            As a host would send them: the fields the tool&apos;s input schema asks for (a call it refuses tests nothing
            and changes no verdict). Each call sends the same values in another key order.
          </span>
        </label>
        {inputError ? (
          <p id={`${ids}-error`} className="text-xs text-red-700" role="alert" data-testid="verify-input-error">
            {inputError}
          </p>
        ) : null}
        <div className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col gap-0.5 text-xs font-medium text-slate-700">
            Calls at once
            <Select
              name="verify-concurrency"
              value={concurrency}
              onChange={(e) => setConcurrency(Number(e.target.value))}
            >
              {VERIFY_CONCURRENCY_CHOICES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </Select>
          </label>
          <Button type="submit" variant="danger" disabled={running} data-testid="verify-run">
            {running ? "Running the test…" : `Run up to ${concurrency + 1} real calls`}
          </Button>
          {running ? (
            <p className="animate-pulse text-xs text-slate-700">
              Calling {tool}, then reading the table and the upstream…
            </p>
          ) : null}
        </div>
      </form>

      <div className="px-4 pb-4">
        <ActionResult
          resultKey={phase.kind === "done" || phase.kind === "refused" ? phase.count : null}
          label="verification result"
        >
          {phase.kind === "refused" ? (
            <p className="text-sm text-red-700" data-testid="verify-refused">
              {phase.refused ? "Not run: " : ""}
              {phase.message}
            </p>
          ) : null}
          {phase.kind === "done" ? <VerificationResult run={phase.run} auditId={phase.auditId} /> : null}
        </ActionResult>
      </div>
    </ModalDialog>
  );
}
