import { Link } from "@/components/ui/link";
import { auditHref } from "@/lib/audit/audit-search-params";
import { StatusBadge } from "@/components/records/status-badge";
import { TimeStamp, utcText } from "@/components/ui/time-stamp";
import type { LookupAnswer, LookupResult, RecordSummary } from "@/lib/records/lookup";
import { LookupMatchesTable } from "./lookup-matches-table";

type Searched = Extract<LookupResult, { kind: "searched" }>;

/**
 * A pasted thread answered token by token, in the order the customer wrote them: two quoted
 * refs are two answers. Only a ref that several keys share lists records to choose between.
 */
export function TicketAnswers({ result, now }: { result: Searched; now: Date }) {
  const { answers } = result;
  return (
    <div className="space-y-4" data-testid="ticket-answers">
      <h2 className="text-base font-semibold text-slate-900">
        {answers.length === 0
          ? "Nothing in this text matched"
          : `${answers.length} ${answers.length === 1 ? "thing" : "things"} in this text, in the order it names them`}
      </h2>
      {answers.length > 0 ? (
        <ol className="space-y-3">
          {answers.map((answer, i) => (
            <AnswerItem key={answer.token} answer={answer} position={i + 1} now={now} />
          ))}
        </ol>
      ) : null}
      <Footnotes result={result} />
    </div>
  );
}

const OUTCOME_WORDS: Record<LookupAnswer["outcome"], string> = {
  found: "Found",
  several: "Several records",
  gone: "No longer in the table",
  unknown: "Not found",
};

function AnswerItem({ answer, position, now }: { answer: LookupAnswer; position: number; now: Date }) {
  const label =
    answer.kind === "field" ? [...new Set(answer.fields.map((field) => field.label))].join(" / ") : answer.kind;
  return (
    <li
      className="rounded-lg border border-slate-200 bg-white p-4"
      data-testid="ticket-answer"
      data-outcome={answer.outcome}
      data-token={answer.token}
    >
      <p className="flex flex-wrap items-baseline gap-x-2 gap-y-1 text-sm">
        <span className="font-semibold text-slate-500">{position}.</span>
        <span className="text-slate-600">{label}</span>
        <code className="break-all font-mono text-slate-900">{answer.token}</code>
        <span className="font-medium text-slate-900">— {OUTCOME_WORDS[answer.outcome]}</span>
      </p>
      <AnswerBody answer={answer} now={now} />
    </li>
  );
}

function AnswerBody({ answer, now }: { answer: LookupAnswer; now: Date }) {
  const [only] = answer.matches;
  if (answer.outcome === "found" && only) return <FoundRecord record={only} now={now} />;
  if (answer.outcome === "several") {
    return (
      <div className="mt-3 space-y-2">
        <p className="text-sm text-slate-600">
          {answer.kind === "field"
            ? `${answer.matches.length} records hold this value — choose by tenant, tool and time.`
            : `${answer.matches.length} records share this ref — choose by tenant, tool and time. A ref is the first 12 hex characters of a key (48 bits): among millions of rows two calls can share one, rarely.`}
          {answer.moreMatches ? " More share it than are listed; paste the full key to pick one." : ""}
        </p>
        <div className="overflow-x-auto rounded-md border border-slate-200">
          <LookupMatchesTable matches={answer.matches} now={now} />
        </div>
      </div>
    );
  }
  const trace = answer.trace;
  const released = trace?.released[0];
  const trimmed = trace?.trimmed[0];
  if (released) {
    return (
      <p className="mt-2 text-sm text-slate-700">
        {released.repeatAllowed ? "Repeat allowed" : released.forced ? "Force-released" : "Released"} by{" "}
        {released.actor} at {utcText(released.at)}
        {released.reason ? ` — “${released.reason}”` : ""}:{" "}
        {released.repeatAllowed
          ? "the completed record was deleted, so the next identical call ran again."
          : "the claim was deleted, so a retry could claim it afresh."}{" "}
        The row as it was is in{" "}
        <Link className="underline" href={auditHref({ key: released.key, action: released.action })}>
          audit entry {released.auditId}
        </Link>
        .
      </p>
    );
  }
  if (trimmed) {
    return (
      <p className="mt-2 text-sm text-slate-700">
        Trimmed by retention at {utcText(trimmed.at)}
        {trimmed.cutoff ? `, which deleted rows created before ${utcText(trimmed.cutoff)}` : ""} (audit entry{" "}
        {trimmed.auditId}).
      </p>
    );
  }
  return (
    <p className="mt-2 text-sm text-slate-700">
      No row, no release and no trim of it in the tenants you can see
      {trace?.events
        ? `; writers recorded ${trace.events.count} event(s) for it, the last at ${utcText(trace.events.last)}`
        : ""}
      . Check it against the customer’s message.
    </p>
  );
}

function FoundRecord({ record, now }: { record: RecordSummary; now: Date }) {
  return (
    <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
      <StatusBadge status={record.status} wording="stored" />
      <span>
        <span className="text-slate-500">tool </span>
        {record.tool ? <span className="font-mono">{record.tool}</span> : <i className="text-slate-500">unrecorded</i>}
      </span>
      <span>
        <span className="text-slate-500">tenant </span>
        {record.tenant}
      </span>
      <span>
        <span className="text-slate-500">claimed </span>
        <TimeStamp iso={record.createdAt} now={now} />
      </span>
      <Link
        href={`/records/${record.key}`}
        className="font-medium text-slate-900 underline"
        aria-label={`Open the record of ${record.ref}`}
      >
        Open record {record.ref}
      </Link>
    </div>
  );
}

function Footnotes({ result }: { result: Searched }) {
  const notes: string[] = [];
  if (result.unmatchedIds.length > 0)
    notes.push(
      `Looked for as searchable ids, not found: ${result.unmatchedIds.join(", ")}. Only rows whose writer recorded the tool are searched by these fields; a ref or key finds any row.`,
    );
  const { emails, cardNumbers } = result.notSearched;
  if (emails + cardNumbers > 0)
    notes.push(
      `Not searched: ${[emails ? plural(emails, "e-mail address", "e-mail addresses") : "", cardNumbers ? plural(cardNumbers, "card number", "card numbers") : ""].filter(Boolean).join(" and ")} — the console masks these, so it never looks them up.`,
    );
  if (result.totalTokens > result.limit)
    notes.push(
      `The text held ${result.totalTokens} refs, keys and ids; the first ${result.limit} were looked up. Paste the rest separately.`,
    );
  if (notes.length === 0) return null;
  return (
    <ul className="space-y-1 text-sm text-slate-600" data-testid="ticket-notes">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
