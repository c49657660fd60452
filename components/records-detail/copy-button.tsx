"use client";

import { useState } from "react";

/** Copies a key, ref or message; says "copied" for a moment so the click is visibly done. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // Clipboard refused (insecure origin, permissions): the text is on screen to select by hand.
    }
  }
  return (
    <button
      type="button"
      onClick={() => void copy()}
      aria-label={`${label}: ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`}
      className="whitespace-nowrap rounded border border-slate-300 px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-100"
    >
      {copied ? "Copied" : label}
    </button>
  );
}
