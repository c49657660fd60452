"use client";

import { useState } from "react";

/** Copies the 12-hex ref (what a caller pastes into a support ticket). */
export function CopyRefButton({ text }: { text: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      // Clipboard access needs a secure context and permission; say so rather than pretend.
      setState("failed");
    }
    setTimeout(() => setState("idle"), 1500);
  }
  return (
    <button
      type="button"
      onClick={() => void copy()}
      aria-label={`Copy ref ${text}`}
      title={state === "failed" ? "The browser refused clipboard access" : "Copy ref"}
      className="rounded px-1 text-xs text-slate-500 hover:bg-slate-100 hover:text-slate-900"
    >
      {state === "copied" ? "copied" : state === "failed" ? "no access" : "copy"}
    </button>
  );
}
