"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";

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
    <Button
      variant="secondary"
      size="xs"
      className="rounded px-1.5 font-normal text-slate-600"
      onClick={() => void copy()}
      aria-label={`${label}: ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`}
    >
      {copied ? "Copied" : label}
    </Button>
  );
}
