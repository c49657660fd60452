"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";

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
    <Button
      variant="ghost"
      size="xs"
      className="px-1 py-0 font-normal text-slate-500 hover:text-slate-900"
      onClick={() => void copy()}
      aria-label={`Copy ref ${text}`}
      title={state === "failed" ? "The browser refused clipboard access" : "Copy ref"}
    >
      {state === "copied" ? "copied" : state === "failed" ? "no access" : "copy"}
    </Button>
  );
}
