"use client";

import { useState, type FormEvent } from "react";
import type { RevealAnswer } from "@/lib/api/contracts/answers";
import { JsonView } from "@/components/ui/json-view";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { useHydrated } from "@/components/ui/use-hydrated";
import { Input } from "@/components/ui/input";

type State =
  | { phase: "closed" }
  | { phase: "asking"; error?: string }
  | { phase: "sending" }
  | { phase: "revealed"; result: RevealAnswer };

/**
 * The stored response, masked. Operators and admins may reveal it with a reason; the console
 * records each reveal in the audit log before it answers.
 */
export function RevealResponse({
  recordKey,
  masked,
  redactedPaths,
  canReveal,
}: {
  recordKey: string;
  masked: unknown;
  redactedPaths: string[];
  canReveal: boolean;
}) {
  const [state, setState] = useState<State>({ phase: "closed" });
  const hydrated = useHydrated();

  async function reveal(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
    setState({ phase: "sending" });
    const answer = await callApi(api.revealRecord, {
      params: { key: recordKey },
      json: { reason },
      unreachable: "Nothing was revealed.",
      accept: (value): value is RevealAnswer => typeof value === "object" && value !== null && "auditId" in value,
    });
    setState(answer.ok ? { phase: "revealed", result: answer.value } : { phase: "asking", error: answer.message });
  }

  // The region is there before the reveal, so a screen reader is already listening when it fills.
  const revealed = (
    <ActionResult resultKey={state.phase === "revealed" ? state.result.auditId : null} label="revealed response">
      {state.phase === "revealed" ? (
        <div data-testid="revealed-response">
          <JsonView value={state.result.response} label="stored response, unmasked" />
          <p className="mt-2 text-xs text-amber-800">
            Unmasked ({state.result.revealedPaths.join(", ") || "nothing was masked"}). Recorded in the audit log as
            entry #{state.result.auditId}.
          </p>
        </div>
      ) : null}
    </ActionResult>
  );
  if (state.phase === "revealed") return <>{revealed}</>;
  return (
    <>
      {revealed}
      <JsonView value={masked} label="stored response" />
      {redactedPaths.length > 0 ? (
        <div className="mt-2 text-xs text-slate-500" data-testid="redaction-note">
          Masked: {redactedPaths.join(", ")}.{" "}
          {canReveal ? (
            state.phase === "closed" ? (
              <Button
                variant="link"
                size="xs"
                disabled={!hydrated}
                onClick={() => setState({ phase: "asking" })}
                data-testid="reveal-open"
              >
                Reveal…
              </Button>
            ) : (
              <form onSubmit={(e) => void reveal(e)} className="mt-2 flex flex-wrap items-center gap-2">
                <label className="sr-only" htmlFor="reveal-reason">
                  Why do you need the unmasked response?
                </label>
                <Input
                  id="reveal-reason"
                  name="reason"
                  // The form replaces the "Reveal…" button that had focus: focus goes on with it.
                  autoFocus
                  required
                  minLength={3}
                  maxLength={500}
                  placeholder="Why? e.g. ticket 4411: customer disputes the card used"
                  className="w-80 bg-transparent text-slate-900"
                />
                <Button
                  type="submit"
                  variant="primary"
                  size="md"
                  disabled={state.phase === "sending"}
                  data-testid="reveal-submit"
                >
                  {state.phase === "sending" ? "Revealing…" : "Reveal (audited)"}
                </Button>
                {state.phase === "asking" && state.error ? (
                  <span role="alert" className="text-red-700">
                    {state.error}
                  </span>
                ) : null}
              </form>
            )
          ) : (
            "Operators and admins may reveal it; each reveal is audited."
          )}
        </div>
      ) : null}
    </>
  );
}
