"use client";

import { useState, type FormEvent } from "react";
import { JsonView } from "@/components/records-detail/json-view";
import { useHydrated } from "@/components/ui/use-hydrated";

type Revealed = { response: unknown; revealedPaths: string[]; auditId: string };
type State = { phase: "closed" } | { phase: "asking"; error?: string } | { phase: "sending" } | { phase: "revealed"; result: Revealed };

/**
 * The stored response, masked. Operators and admins may reveal it with a reason; the console
 * records each reveal in the audit log before it answers.
 */
export function RevealResponse({ recordKey, masked, redactedPaths, canReveal }: { recordKey: string; masked: unknown; redactedPaths: string[]; canReveal: boolean }) {
  const [state, setState] = useState<State>({ phase: "closed" });
  const hydrated = useHydrated();

  async function reveal(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
    setState({ phase: "sending" });
    try {
      const response = await fetch(`/api/v1/records/${encodeURIComponent(recordKey)}/reveal`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ reason }),
      });
      const body = (await response.json()) as Revealed | { error?: { message?: string } };
      if (!response.ok || !("auditId" in body)) {
        setState({ phase: "asking", error: ("error" in body && body.error?.message) || `The console answered ${response.status}.` });
        return;
      }
      setState({ phase: "revealed", result: body });
    } catch {
      setState({ phase: "asking", error: "The console could not be reached. Nothing was revealed." });
    }
  }

  if (state.phase === "revealed") {
    return (
      <div data-testid="revealed-response">
        <JsonView value={state.result.response} label="stored response, unmasked" />
        <p className="mt-2 text-xs text-amber-800">
          Unmasked ({state.result.revealedPaths.join(", ") || "nothing was masked"}). Recorded in the audit log as entry #{state.result.auditId}.
        </p>
      </div>
    );
  }
  return (
    <>
      <JsonView value={masked} label="stored response" />
      {redactedPaths.length > 0 ? (
        <div className="mt-2 text-xs text-slate-500" data-testid="redaction-note">
          Masked: {redactedPaths.join(", ")}.{" "}
          {canReveal ? (
            state.phase === "closed" ? (
              <button type="button" disabled={!hydrated} onClick={() => setState({ phase: "asking" })} className="underline disabled:opacity-60" data-testid="reveal-open">
                Reveal…
              </button>
            ) : (
              <form onSubmit={(e) => void reveal(e)} className="mt-2 flex flex-wrap items-center gap-2">
                <label className="sr-only" htmlFor="reveal-reason">Why do you need the unmasked response?</label>
                <input
                  id="reveal-reason"
                  name="reason"
                  required
                  minLength={3}
                  maxLength={500}
                  placeholder="Why? e.g. ticket 4411: customer disputes the card used"
                  className="w-80 rounded-md border border-slate-300 px-2 py-1 text-sm text-slate-900"
                />
                <button type="submit" disabled={state.phase === "sending"} className="rounded-md bg-slate-900 px-2.5 py-1 text-sm text-white disabled:opacity-60" data-testid="reveal-submit">
                  {state.phase === "sending" ? "Revealing…" : "Reveal (audited)"}
                </button>
                {state.phase === "asking" && state.error ? <span role="alert" className="text-red-700">{state.error}</span> : null}
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
