"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { serializeLookupParams } from "@/lib/records/lookup-search-params";
import { Input } from "@/components/ui/input";

/** The lookup box in the header; "/" focuses it from anywhere on the page. */
export function HeaderLookup() {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  // Marks the box once the "/" shortcut is listening (after hydration), for people's tools and tests alike.
  const [shortcutReady, setShortcutReady] = useState(false);

  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      const typing =
        target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable);
      if (event.key === "/" && !typing) {
        event.preventDefault();
        input.current?.focus();
      }
    }
    window.addEventListener("keydown", onKey);
    // Only this effect knows the listener is attached; the flag tells a waiting test (and nothing else).
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setShortcutReady(true);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = input.current?.value.trim() ?? "";
    if (text) router.push(serializeLookupParams("/lookup", { q: text.slice(0, 4000) }));
  }

  return (
    <form role="search" onSubmit={submit} className="relative w-full md:max-w-md">
      <label htmlFor="header-lookup" className="sr-only">
        Look up a ref, key or error message
      </label>
      <Input
        id="header-lookup"
        ref={input}
        data-shortcut-ready={shortcutReady ? "true" : undefined}
        type="search"
        aria-keyshortcuts="/"
        placeholder="Paste a ref, key or error message"
        className="peer h-auto w-full px-3 py-1.5 placeholder:text-slate-500 md:pointer-fine:pr-9"
      />
      {/* The "/" shortcut needs a keyboard: shown only to a fine pointer on a wide screen, and only while the box is empty. */}
      <kbd
        aria-hidden
        data-testid="lookup-shortcut-hint"
        className="pointer-events-none absolute top-1/2 right-2 hidden -translate-y-1/2 rounded border border-slate-300 px-1.5 font-mono text-xs text-slate-500 peer-[:not(:placeholder-shown)]:hidden md:pointer-fine:inline"
      >
        /
      </kbd>
    </form>
  );
}
