"use client";

import { useState, type FormEvent } from "react";
import type { ArgumentsCheck } from "@/lib/records/check-arguments";
import type { ArgumentsComparison, Bucket, BucketPosition } from "@/lib/records/compare-arguments";
import { CanonicalDiffTable } from "@/components/records-detail/canonical-diff-table";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";

type State =
  | { phase: "idle" }
  | { phase: "checking" }
  | { phase: "answered"; check: ArgumentsCheck; n: number }
  | { phase: "failed"; message: string; field: string | null; n: number };

// Over the field look: the padding, face and focus border of this panel's fields.
const FIELD_BASE = "h-auto bg-transparent px-2.5 py-1.5 font-mono focus:border-slate-500";
const FIELD = `${FIELD_BASE} w-full`;

const BUCKET_WORDS: Record<BucketPosition, string> = {
  same: "this record's bucket",
  previous: "the bucket before",
  next: "the bucket after",
};

/**
 * "Check arguments": support pastes what the customer says they sent, and learns whether it
 * derives this record's key (server-side, idem-guard's derivation). The record keeps only a
 * hash, so a "no" can point at a differing byte only against arguments shown to derive the key:
 * the last ones that matched here are kept as that reference, or support pastes some.
 */
export function CheckArguments({ recordKey }: { recordKey: string }) {
  const [state, setState] = useState<State>({ phase: "idle" });
  const [reference, setReference] = useState("");
  const count = state.phase === "answered" || state.phase === "failed" ? state.n : 0;

  async function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const args = String(data.get("args") ?? "");
    const windowText = String(data.get("window") ?? "").trim();
    const window = windowText === "" ? undefined : Number(windowText);
    setState({ phase: "checking" });
    const answer = await callApi(api.checkArguments, {
      params: { key: recordKey },
      json: { args, window, reference: reference.trim() === "" ? null : reference },
      unreachable: "Nothing was checked.",
      accept: (value): value is ArgumentsCheck => typeof value === "object" && value !== null && "comparison" in value,
    });
    if (!answer.ok) {
      const fields = answer.error.fields as { field?: string }[] | undefined;
      return setState({ phase: "failed", message: answer.message, field: fields?.[0]?.field ?? null, n: count + 1 });
    }
    // Arguments that derive the key are this record's, byte for byte: the reference for the next check.
    if (answer.value.comparison.verdict === "match") setReference(args);
    setState({ phase: "answered", check: answer.value, n: count + 1 });
  }

  const argsInvalid = state.phase === "failed" && state.field === "args";
  return (
    <div>
      <form onSubmit={(e) => void check(e)} aria-label="Check arguments" className="space-y-3">
        <Field
          label="Arguments the customer describes (JSON)"
          invalid={argsInvalid}
          hint={
            <>
              Hashed with this record&apos;s tenant, subject and tool, in the bucket its creation time falls in and the
              two beside it, under both canonical schemes. Nothing is stored or changed.
            </>
          }
        >
          {(control) => (
            <Textarea
              {...control}
              name="args"
              rows={4}
              required
              spellCheck={false}
              data-testid="check-arguments-input"
              className={FIELD}
              placeholder='{"amount_cents": 2400, "card": "c_71"}'
            />
          )}
        </Field>
        <div className="flex flex-wrap items-end gap-3">
          <Field label="Window (seconds)">
            <Input name="window" type="number" min={1} step={1} defaultValue={900} className={`${FIELD_BASE} w-28`} />
          </Field>
          <Button variant="primary" type="submit" disabled={state.phase === "checking"}>
            {state.phase === "checking" ? "Checking…" : "Check arguments"}
          </Button>
        </div>
        <details open={reference !== "" || undefined}>
          <summary className="cursor-pointer text-xs font-medium text-slate-700">
            Arguments known to be this record&apos;s {reference !== "" ? "(kept from the last match)" : "(optional)"}
          </summary>
          <p className="mt-1 text-xs text-slate-500">
            The differing byte is shown against these, once they are proven to derive this key.
          </p>
          <Textarea
            name="reference"
            aria-label="Arguments known to be this record's"
            rows={3}
            spellCheck={false}
            value={reference}
            onChange={(e) => setReference(e.target.value)}
            data-testid="check-arguments-reference"
            className={`${FIELD} mt-1`}
          />
        </details>
      </form>
      <ActionResult resultKey={count === 0 ? null : count} label="argument check" className="mt-3">
        {state.phase === "failed" ? (
          <p className="text-sm text-red-700" data-testid="check-arguments-error">
            {state.message}
          </p>
        ) : null}
        {state.phase === "answered" ? <CheckAnswer check={state.check} /> : null}
      </ActionResult>
    </div>
  );
}

function CheckAnswer({ check }: { check: ArgumentsCheck }) {
  const { comparison } = check;
  if (comparison.verdict === "cannot_check")
    return (
      <p
        className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
        data-testid="check-verdict"
      >
        {comparison.reason}
      </p>
    );
  const match = comparison.match;
  const own = comparison.buckets.find((b) => b.position === "same");
  return (
    <div
      className={`rounded-md border p-3 text-sm ${match ? "border-emerald-300 bg-emerald-50 text-emerald-950" : "border-rose-300 bg-rose-50 text-rose-950"}`}
      data-testid="check-verdict"
      data-verdict={comparison.verdict}
    >
      {match ? (
        <p>
          <span className="font-semibold">Yes</span> — these arguments derive this record&apos;s key in{" "}
          {BUCKET_WORDS[match.position]} ({bounds(match)}), under the {match.scheme} canonical form.
          {match.position !== "same"
            ? " The writer's clock put the call one bucket away from the database's creation time."
            : ""}
        </p>
      ) : (
        <p>
          <span className="font-semibold">No</span> — these arguments do not derive this key. Tried: python-json and
          jcs, in {own ? bounds(own) : "this record's bucket"} (where the creation time falls) and the buckets before
          and after; window {comparison.windowSeconds} s; tenant {check.record.tenant}, subject{" "}
          {check.record.subject ?? "None (not recorded)"}, tool {check.record.tool}.
        </p>
      )}
      {!match ? <WhatDiffers comparison={comparison} /> : null}
      {check.otherRecords.length > 0 ? (
        <p className="mt-2" data-testid="check-other-records">
          These arguments are another record&apos;s:{" "}
          {check.otherRecords.map((r, i) => (
            <span key={r.key}>
              {i > 0 ? ", " : ""}
              <a className="font-mono underline" href={`/records/${encodeURIComponent(r.key)}`}>
                {r.ref}
              </a>{" "}
              ({BUCKET_WORDS[r.position]}, {r.scheme})
            </span>
          ))}
          .
        </p>
      ) : null}
      <details className="mt-2 text-slate-800">
        <summary className="cursor-pointer text-xs font-medium">Canonical forms hashed</summary>
        {comparison.canonical.map((c) => (
          <p key={c.scheme} className="mt-1 break-all text-xs">
            {c.scheme} ({c.bytes} bytes): <code className="font-mono">{c.text}</code>
          </p>
        ))}
      </details>
    </div>
  );
}

function WhatDiffers({ comparison }: { comparison: Extract<ArgumentsComparison, { verdict: "no_match" | "match" }> }) {
  const { reference } = comparison;
  if (reference === null)
    return (
      <p className="mt-2 text-xs" data-testid="check-no-reference">
        Which byte differs cannot be known from the record alone: it keeps only the key, a SHA-256 of
        tenant|subject|tool|canonical arguments|bucket, which says whether two inputs are equal, never where they
        differ. Paste arguments known to be this record&apos;s (or first check ones that match) to see the first
        differing byte.
      </p>
    );
  if (!reference.proven)
    return (
      <p className="mt-2 text-xs" data-testid="check-reference-unproven">
        The reference arguments do not derive this key either, so no byte can be pointed to: they are not this
        record&apos;s.
      </p>
    );
  const { diff } = reference;
  return (
    <div className="mt-2" data-testid="check-diff" data-offset={diff.offset ?? ""}>
      {/* Never equal here: equal canonical bytes under the reference's scheme would have matched. */}
      <p className="text-xs">
        First differing {reference.scheme} canonical byte against the arguments known to be this record&apos;s:{" "}
        <span className="font-semibold">offset {diff.offset}</span> (reference {diff.leftBytes} bytes, pasted{" "}
        {diff.rightBytes} bytes).
      </p>
      <CanonicalDiffTable diff={diff} leftName="reference" rightName="pasted" />
    </div>
  );
}

/** "bucket 1995710: 2026-12-01 15:30:00–15:45:00 UTC" (the end's date too when it differs). */
function bounds(bucket: Bucket): string {
  const [startDate, startTime] = bucket.startsAt.replace(".000Z", "").split("T");
  const [endDate, endTime] = bucket.endsAt.replace(".000Z", "").split("T");
  return `bucket ${bucket.bucket}: ${startDate} ${startTime}–${endDate === startDate ? "" : `${endDate} `}${endTime} UTC`;
}
