import { Link } from "@/components/ui/link";
import { JsonView } from "@/components/ui/json-view";
import { TimeStamp, utcText } from "@/components/ui/time-stamp";
import { auditHref } from "@/lib/audit/audit-search-params";
import type { RefTrace } from "@/lib/records/lookup";
import type { ReleasedRef, TrimmedRef } from "@/lib/records/ref-fate";

/** A ref (or key) no longer in the table that the audit log accounts for: each release and trim it records. */
export function RefFateCard({ trace, now }: { trace: RefTrace; now: Date }) {
  return (
    <section className="space-y-3" data-testid="ref-fate" data-fate={trace.fate} data-ref={trace.ref}>
      {trace.released.map((entry) => (
        <ReleasedCard key={entry.auditId} token={trace.ref} entry={entry} now={now} />
      ))}
      {trace.trimmed.map((entry) => (
        <TrimmedCard key={`${entry.auditId}/${entry.tenant}`} token={trace.ref} entry={entry} now={now} />
      ))}
    </section>
  );
}

function ReleasedCard({ token, entry, now }: { token: string; entry: ReleasedRef; now: Date }) {
  return (
    <article
      className="rounded-lg border border-amber-200 bg-white p-5"
      data-testid="ref-released"
      data-repeat-allowed={entry.repeatAllowed}
      data-audit-id={entry.auditId}
    >
      <Heading
        tone="bg-amber-100 text-amber-900"
        word={entry.repeatAllowed ? "Repeat allowed" : entry.forced ? "Force-released" : "Released"}
        token={token}
      />
      <h2 className="mt-2 text-base font-semibold text-slate-900">
        {entry.repeatAllowed
          ? `Repeat allowed by ${entry.actor}: the completed record was deleted from the table`
          : `Released by ${entry.actor}: the claim was deleted from the table`}
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {entry.repeatAllowed
          ? "Allowing a repeat deletes a completed record so that the next identical call runs again, on purpose; the audit log keeps who, when, why and the row as it was."
          : "A release deletes the row so that a retry can claim the key afresh; the audit log keeps who, when, why and the row as it was."}
      </p>
      <dl className="mt-3 grid gap-x-4 gap-y-1.5 text-sm sm:grid-cols-[9rem_1fr]">
        <Term>By</Term>
        <dd data-testid="released-by">
          {entry.actor} <span className="text-slate-500">({entry.actorRole})</span>
        </dd>
        <Term>When</Term>
        <dd>
          <TimeStamp iso={entry.at} now={now} /> <span className="text-xs text-slate-500">({utcText(entry.at)})</span>
        </dd>
        <Term>Reason</Term>
        <dd data-testid="released-reason">
          {entry.reason ? <q>{entry.reason}</q> : <span className="italic text-slate-500">none given</span>}
        </dd>
        {entry.forced ? (
          <>
            <Term>Evidence</Term>
            <dd className="text-amber-900">forced by an admin, without the processor&apos;s &ldquo;not taken&rdquo;</dd>
          </>
        ) : null}
        <Term>Tenant</Term>
        <dd>{entry.tenant ?? <span className="italic text-slate-500">unrecorded</span>}</dd>
        <Term>Key</Term>
        <dd className="break-all font-mono text-xs leading-5">{entry.key}</dd>
        <Term>Audit entry</Term>
        <dd>
          <Link
            href={auditHref({ key: entry.key, action: entry.action })}
            className="font-medium text-slate-900 underline underline-offset-2"
            data-testid="released-audit-link"
          >
            #{entry.auditId} · {entry.action}
          </Link>
        </dd>
      </dl>
      <h3 className="mt-4 text-sm font-semibold text-slate-800">
        The row as it was {entry.repeatAllowed ? "deleted" : "released"}
      </h3>
      <div className="mt-1">
        {entry.snapshot === null ? (
          <p className="text-xs text-slate-500">The audit entry holds no snapshot.</p>
        ) : (
          <JsonView value={entry.snapshot} label={`snapshot in audit entry ${entry.auditId}`} />
        )}
      </div>
      {entry.redactedPaths.length > 0 ? (
        <p className="mt-1 text-xs text-amber-800">Masked: {entry.redactedPaths.join(", ")}.</p>
      ) : null}
    </article>
  );
}

function TrimmedCard({ token, entry, now }: { token: string; entry: TrimmedRef; now: Date }) {
  const at = new Date(entry.at);
  const trimHref = auditHref({
    action: entry.action,
    from: at.toISOString(),
    to: new Date(at.getTime() + 1).toISOString(),
  });
  return (
    <article
      className="rounded-lg border border-slate-300 bg-white p-5"
      data-testid="ref-trimmed"
      data-audit-id={entry.auditId}
    >
      <Heading tone="bg-slate-200 text-slate-800" word="Trimmed" token={token} />
      <h2 className="mt-2 text-base font-semibold text-slate-900">
        Deleted by retention{entry.cutoff ? `: rows created before ${utcText(entry.cutoff)}` : ""}
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The trim records the ref (the first 12 characters) of every row it deletes; the row&apos;s response is not kept
        {entry.action === "retention.trim_unresolved" ? ", except in the audit entry of an unresolved claim" : ""}.
      </p>
      <dl className="mt-3 grid gap-x-4 gap-y-1.5 text-sm sm:grid-cols-[9rem_1fr]">
        <Term>Run</Term>
        <dd className="break-all font-mono text-xs leading-5" data-testid="trimmed-run">
          {entry.runId ?? "—"}
        </dd>
        <Term>When</Term>
        <dd>
          <TimeStamp iso={entry.at} now={now} /> <span className="text-xs text-slate-500">({utcText(entry.at)})</span>
        </dd>
        <Term>By</Term>
        <dd>{entry.actor}</dd>
        {entry.olderThan ? (
          <>
            <Term>Retention</Term>
            <dd>rows older than {entry.olderThan}</dd>
          </>
        ) : null}
        <Term>Tenant</Term>
        <dd>{entry.tenant}</dd>
        <Term>Audit entry</Term>
        <dd>
          {entry.auditVisible ? (
            <Link href={trimHref} className="font-medium text-slate-900 underline underline-offset-2">
              #{entry.auditId} · {entry.action}
            </Link>
          ) : (
            <span>
              #{entry.auditId} · {entry.action}{" "}
              <span className="text-xs text-slate-500">
                (retention entries name no tenant: readers of every tenant see them)
              </span>
            </span>
          )}
        </dd>
      </dl>
    </article>
  );
}

function Heading({ tone, word, token }: { tone: string; word: string; token: string }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className={`rounded-full px-2 py-0.5 text-xs font-semibold ${tone}`}>{word}</span>
      <code className="break-all font-mono text-sm text-slate-700">{token}</code>
    </div>
  );
}

function Term({ children }: { children: React.ReactNode }) {
  return <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 sm:pt-0.5">{children}</dt>;
}
