"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { postToApi } from "./post-json";

/** "Naturally idempotent (a set, not an append)", with the reason an auditor will read. */
export function ReviewForm({ server, tool }: { server: string; tool: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} className="mt-1 text-xs font-medium text-sky-800 underline">
        Review: naturally idempotent…
      </button>
    );
  }
  return (
    <form
      className="mt-2 space-y-1"
      onSubmit={async (event) => {
        event.preventDefault();
        const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
        const result = await postToApi("/api/v1/tools/reviews", JSON.stringify({ server, tool, reason }));
        if (!result.ok) setError(result.message);
        else {
          setOpen(false);
          router.refresh();
        }
      }}
    >
      <textarea name="reason" required minLength={10} rows={2} placeholder="Why a repeat has no additional effect (e.g. it sets a value; it does not append)" className="w-full rounded-md border border-slate-300 px-2 py-1 text-xs" />
      <div className="flex gap-2">
        <button type="submit" className="rounded-md bg-slate-900 px-2 py-1 text-xs font-medium text-white">Record review</button>
        <button type="button" onClick={() => setOpen(false)} className="text-xs text-slate-600">Cancel</button>
      </div>
      {error ? <p className="text-xs text-red-700" role="alert">{error}</p> : null}
    </form>
  );
}
