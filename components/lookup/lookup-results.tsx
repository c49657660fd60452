import type { LookupResult, UnseenRefs } from "@/lib/records/lookup";
import { LookupMatchesTable } from "./lookup-matches-table";
import { RefFateCard } from "./ref-fate-card";
import { TicketAnswers } from "./ticket-answers";

/**
 * What the lookup found: records to choose between (one match never renders: the page redirects),
 * what the audit log says happened to refs no longer in the table, and why the rest may be missing.
 */
export function LookupResults({ result, now }: { result: LookupResult; now: Date }) {
  if (result.kind === "invalid" || result.kind === "no_refs") {
    return (
      <p
        role="alert"
        className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800"
        data-testid="lookup-message"
      >
        {result.message}
      </p>
    );
  }
  // A whole ticket (several refs, or ids found by searchable field) is answered token by token.
  if (result.answers.length !== 1 || result.answers[0]?.kind === "field")
    return <TicketAnswers result={result} now={now} />;
  const searched = [...result.keys, ...result.refs.filter((ref) => !result.keys.some((key) => key.startsWith(ref)))];
  // What the audit log accounts for is shown as fact; the possibilities only for what it does not.
  const known = result.misses.filter((m) => m.fate !== "never_seen");
  const unseen = result.misses.filter((m) => m.fate === "never_seen");
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-600" data-testid="lookup-searched">
        Looked for{" "}
        {searched.map((token, i) => (
          <span key={token}>
            {i > 0 ? ", " : ""}
            <code className="font-mono text-slate-900">{token}</code>
          </span>
        ))}
        {result.truncated ? " (the text held more; only these were looked up)" : ""}.
      </p>

      {known.map((trace) => (
        <RefFateCard key={trace.ref} trace={trace} now={now} />
      ))}

      {result.matches.length === 0 && result.unseen ? (
        <UnseenRefsCard unseen={result.unseen} />
      ) : result.matches.length === 0 ? null : (
        <section className="rounded-lg border border-slate-200 bg-white" data-testid="lookup-matches">
          <div className="border-b border-slate-200 p-4">
            <h2 className="text-base font-semibold">
              {result.matches.length} records match — choose by tenant, tool and time
            </h2>
            <p className="mt-1 text-sm text-slate-600">
              A ref is the first 12 hex characters of a key (48 bits): among millions of rows two calls can share one.
              The customer’s tenant and the time of the error tell them apart.
            </p>
          </div>
          <LookupMatchesTable matches={result.matches} now={now} />
          {result.moreMatches ? (
            <p className="p-4 text-xs text-slate-500">
              More records share this ref than are listed; paste the full key to pick one.
            </p>
          ) : null}
        </section>
      )}

      {result.matches.length > 0 && unseen.length > 0 ? (
        <p className="text-xs text-slate-500">
          No record, release or trim of {unseen.map((m) => m.ref).join(", ")} in the tenants you can see.
        </p>
      ) : null}
    </div>
  );
}

/** Refs nothing accounts for: "never seen" said once, in the heading, then what may explain it. */
function UnseenRefsCard({ unseen }: { unseen: UnseenRefs }) {
  const them = unseen.refs.length === 1 ? "it" : "them";
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-5" data-testid="lookup-no-match">
      <h2 className="text-base font-semibold">
        Never seen:{" "}
        {unseen.refs.map((ref, i) => (
          <span key={ref}>
            {i > 0 ? ", " : ""}
            <code className="font-mono">{ref}</code>
          </span>
        ))}
      </h2>
      {unseen.traces.map((sentence) => (
        <p key={sentence} className="mt-1 text-sm text-slate-700">
          {sentence}
        </p>
      ))}
      <p className="mt-1 text-sm text-slate-600">
        No row, no release and no trim of {them} in the last {unseen.days} days in the tenants you can see. Why {them}{" "}
        may be missing:
      </p>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
        {unseen.possibilities.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
    </section>
  );
}
