"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Textarea } from "@/components/ui/textarea";

/** "Naturally idempotent (a set, not an append)", with the reason an auditor will read. */
export function ReviewForm({ server, tool }: { server: string; tool: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A recorded review closes the form; its confirmation takes the focus the submit button had.
  const [recorded, setRecorded] = useState(0);
  const result = (
    <ActionResult
      resultKey={recorded > 0 ? recorded : null}
      label="review result"
      className="mt-1 text-xs text-emerald-800"
    >
      {recorded > 0 ? "Review recorded: this tool is marked naturally idempotent." : null}
    </ActionResult>
  );
  if (!open) {
    return (
      <>
        {result}
        <Button variant="link" size="xs" onClick={() => setOpen(true)} className="mt-1 text-sky-800 hover:text-sky-950">
          Review: naturally idempotent…
        </Button>
      </>
    );
  }
  return (
    <>
      {result}
      <form
        className="mt-2 space-y-1"
        onSubmit={async (event) => {
          event.preventDefault();
          const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
          const result = await callApi(api.toolsReview, { json: { server, tool, reason } });
          if (!result.ok) setError(result.message);
          else {
            setError(null);
            setOpen(false);
            setRecorded((count) => count + 1);
            router.refresh();
          }
        }}
      >
        <Textarea
          name="reason"
          aria-label="Why a repeat of this tool has no additional effect"
          // The form replaces the button that opened it: focus goes on with it.
          autoFocus
          required
          minLength={10}
          rows={2}
          placeholder="Why a repeat has no additional effect (e.g. it sets a value; it does not append)"
          className="w-full bg-transparent text-xs"
        />
        <div className="flex gap-2">
          <Button type="submit" variant="primary" size="xs" className="py-1">
            Record review
          </Button>
          <Button variant="ghost" size="xs" onClick={() => setOpen(false)}>
            Cancel
          </Button>
        </div>
        {error ? (
          <p className="text-xs text-red-700" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </>
  );
}
