"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { extractRefs, MAX_LOOKUP_TEXT_CHARS } from "@/lib/records/extract-refs";
import { serializeLookupParams } from "@/lib/records/lookup-search-params";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";

/** A URL this long still passes every proxy and Node's header limit. */
const MAX_QUERY_CHARS = 6_000;

/** The big paste box: anything goes in (a whole error message), the server finds the refs. */
export function LookupForm({ initialText }: { initialText: string }) {
  const router = useRouter();
  const [text, setText] = useState(initialText);
  const [message, setMessage] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = text.trim();
    if (!trimmed) return setMessage("Paste an error message, a ref or a key first.");
    if (trimmed.length > MAX_LOOKUP_TEXT_CHARS) {
      return setMessage(
        `That text is ${trimmed.length.toLocaleString("en")} characters long; paste at most ${MAX_LOOKUP_TEXT_CHARS.toLocaleString("en")}. The sentence with the ref in it is enough.`,
      );
    }
    setMessage(null);
    let query = trimmed.replace(/\s+/g, " ");
    // A long paste would make a URL too long to share: send only the refs and keys it holds.
    if (encodeURIComponent(query).length > MAX_QUERY_CHARS) {
      const found = extractRefs(query);
      if (found.ok) query = [...found.keys, ...found.refs].join(" ") || query.slice(0, 2_000);
    }
    router.push(serializeLookupParams("/lookup", { q: query }));
  }

  return (
    <form onSubmit={submit} className="rounded-lg border border-slate-200 bg-white p-4" aria-label="Look up">
      <label htmlFor="lookup-text" className="text-sm font-medium text-slate-800">
        Paste the customer’s error message or the whole ticket: refs, keys, receipt or tracking ids
      </label>
      <Textarea
        id="lookup-text"
        name="q"
        rows={4}
        autoFocus={!initialText}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) event.currentTarget.form?.requestSubmit();
        }}
        placeholder="A charge with these exact details is already in progress (ref 3f9a1c2b7d4e). Do not submit it again; call get_charge_status with this ref."
        className="mt-2 w-full bg-transparent px-3 py-2 font-mono placeholder:text-slate-500"
      />
      <div className="mt-2 flex items-center gap-3">
        <Button variant="primary" size="md" type="submit">
          Look up
        </Button>
        <span className="text-xs text-slate-500">
          Quotes, brackets and surrounding words are fine. Ctrl+Enter submits.
        </span>
      </div>
      {message ? (
        <p role="alert" className="mt-2 text-sm text-red-700" data-testid="lookup-form-error">
          {message}
        </p>
      ) : null}
    </form>
  );
}
