import type { ReactNode } from "react";
import { Link } from "@/components/ui/link";
import { formatAge } from "@/lib/format/relative-time";
import type { RecordDetail, TimelineEntry } from "@/lib/records/record-detail";
import type { StoredAmount } from "@/lib/records/response-facts";
import { AnswerSentence } from "@/components/records-detail/answer-sentence";
import { AllowRepeatPanel } from "@/components/records-detail/allow-repeat-panel";
import { AskAnOperator } from "@/components/records-detail/ask-an-operator";
import { AskProcessor } from "@/components/records-detail/ask-processor";
import { CheckArguments } from "@/components/records-detail/check-arguments";
import { RecordDuplicates } from "@/components/records-detail/record-duplicates";
import { CopyButton } from "@/components/ui/copy-button";
import { JsonView } from "@/components/ui/json-view";
import { RevealResponse } from "@/components/records-detail/reveal-response";
import { SearchableFields } from "@/components/records-detail/searchable-fields";
import { StatusBadge } from "@/components/records/status-badge";
import { TimeStamp, utcText } from "@/components/ui/time-stamp";
import { KeyProtectionText } from "@/components/records-detail/key-protection-text";
import { REPEAT_DELAY_BANDS, type RepeatDelayBand } from "@/lib/repeats/repeat-delay-band";

/**
 * `processorPanel` replaces the read-only "Ask the processor" for people who may act on the
 * answer (the operator's resolve panel, which contains the same question).
 */
export function RecordDetailView({
  detail,
  now,
  processorPanel,
  canReveal = false,
  allowRepeatVersion,
}: {
  detail: RecordDetail;
  now: Date;
  processorPanel?: ReactNode;
  canReveal?: boolean;
  /** Set (the row's version) when the reader may allow this completed record to repeat. */
  allowRepeatVersion?: string | null;
}) {
  const { record, stuck } = detail;
  const inProgress = record.status === "in_progress";
  // Past its time bucket no repeat carries this key: what follows is what repeats received, not what one gets now.
  const bucketEnded = detail.protection.kind === "bucket" && detail.protection.ended;
  const callerColumn = (
    <div className="contents xl:block xl:min-w-0 xl:space-y-6">
      <Panel title={bucketEnded ? "What a repeat caller received" : "What a repeat caller receives now"}>
        {bucketEnded && detail.protection.kind === "bucket" ? (
          <p className="mb-2 text-sm font-medium text-amber-800" data-testid="bucket-ended-note">
            Its time bucket ended {utcText(detail.protection.until)}: an identical call now derives a new key and runs
            again. Until then, a repeat
            {detail.repeatCaller.kind === "replay" ? " got the answer below." : " was refused as below."}
          </p>
        ) : null}
        {detail.repeatCaller.kind === "replay" ? (
          <p className="text-sm text-slate-700" data-testid="replay-note">
            The stored response (below), replayed as if it were the first answer: no second side effect
            {detail.duplicates.length > 0
              ? " from a repeat under this key (the duplicate above came under another)"
              : ""}
            .{detail.repeatCaller.redactedPaths.length > 0 ? " The caller receives it unmasked." : ""}
          </p>
        ) : (
          <>
            <p className="mb-2 text-sm text-slate-600">
              {bucketEnded
                ? "The claim has no outcome yet, so a repeat within its bucket was refused with this message:"
                : "The claim has no outcome yet, so a repeat is refused with this message:"}
            </p>
            <blockquote
              className="rounded-md border-l-4 border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-950"
              data-testid="in-flight-message"
            >
              {detail.repeatCaller.message}
            </blockquote>
            <div className="mt-2 flex items-center gap-2 text-xs text-slate-500">
              <CopyButton text={detail.repeatCaller.message} label="Copy message" />
              {detail.repeatCaller.statusTool?.source === "convention" ? (
                <span>Status tool named by convention; the writer’s own message may name another.</span>
              ) : null}
            </div>
          </>
        )}
        <p className="mt-3 text-xs text-slate-500">
          {detail.protection.kind === "bucket"
            ? `Only a repeat before ${utcText(detail.protection.until)} (the end of its time bucket) carries this key; a later one derives a new key and is performed again.`
            : "A repeat carries this key for as long as the row is kept: the tool keys its calls by a business key."}
          {record.tool ? (
            <>
              {" "}
              <Link
                className="underline"
                href={`/keys?tenant=${encodeURIComponent(record.tenant)}&tool=${encodeURIComponent(record.tool)}${record.subject ? `&subject=${encodeURIComponent(record.subject)}` : ""}&at=${encodeURIComponent(record.createdAt)}`}
              >
                Explain a key for this call
              </Link>
            </>
          ) : null}
        </p>
      </Panel>

      <Panel title="Stored response">
        {detail.response.present ? (
          <RevealResponse
            recordKey={record.key}
            masked={detail.response.value}
            redactedPaths={detail.response.redactedPaths}
            canReveal={canReveal}
          />
        ) : (
          <p className="text-sm text-slate-600">None stored: the outcome has not been recorded.</p>
        )}
      </Panel>

      <Panel title="Check arguments">
        <CheckArguments recordKey={record.key} />
      </Panel>
    </div>
  );
  const processorColumn = (
    <div className="contents xl:block xl:min-w-0 xl:space-y-6">
      <Panel title={processorPanelTitle(detail.processor !== null, processorPanel !== undefined)} id="resolve">
        {processorPanel ?? <AskProcessor recordKey={record.key} tool={record.tool} processor={detail.processor} />}
        {!processorPanel && stuck.isStuck ? (
          <AskAnOperator recordKey={record.key} nobodyToAsk={detail.processor === null} />
        ) : null}
      </Panel>
      {allowRepeatVersion !== undefined ? (
        <Panel title="Allow a repeat">
          {bucketEnded && detail.protection.kind === "bucket" ? (
            // Past its bucket the key catches nothing: deleting the row would change no call's fate.
            <p className="text-sm text-slate-600" data-testid="allow-repeat-not-needed">
              Not needed: its time bucket ended {utcText(detail.protection.until)}, so an identical call already derives
              a new key and runs again.
            </p>
          ) : (
            <AllowRepeatPanel recordKey={record.key} tool={record.tool} version={allowRepeatVersion} />
          )}
        </Panel>
      ) : null}
      <Panel title="Timeline" className={inProgress ? "" : "order-first xl:order-none"}>
        <Timeline entries={detail.timeline} now={now} />
        {detail.eventCounts === null ? (
          <p className="mt-3 text-xs text-slate-500">
            This writer recorded no events for this key (replays and rejections are not known, which is not the same as
            none).
          </p>
        ) : detail.eventsTruncated ? (
          <p className="mt-3 text-xs text-slate-500">
            Showing the first events only; totals:{" "}
            {Object.entries(detail.eventCounts)
              .map(([k, n]) => `${k} ${n}`)
              .join(", ")}
            .
          </p>
        ) : null}
      </Panel>
    </div>
  );
  return (
    <div className="space-y-6">
      <AnswerSentence answer={detail.answer} now={now} />
      <RecordDuplicates recordKey={record.key} duplicates={detail.duplicates} now={now} />
      <section className="rounded-lg border border-slate-200 bg-white p-5" aria-label="Record">
        <div className="flex flex-wrap items-center gap-3">
          <span className="text-xs uppercase tracking-wide text-slate-500">ref</span>
          <span className="font-mono text-2xl font-semibold tracking-tight" data-testid="record-ref">
            {record.ref}
          </span>
          <CopyButton text={record.ref} label="Copy ref" />
          <StatusBadge status={record.status} stuck={stuck.isStuck} wording="stored" testId="record-status" />
        </div>
        {/* Two columns from the phone up: the short facts pair off, so the timeline comes sooner. */}
        <dl className="mt-4 grid grid-cols-2 gap-x-8 gap-y-3 text-sm xl:grid-cols-3">
          <Field label="Key" span="row">
            <span className="break-all font-mono text-xs" data-testid="record-key">
              {record.key}
            </span>{" "}
            <CopyButton text={record.key} label="Copy key" />
          </Field>
          <Field label="Tenant">{record.tenant}</Field>
          <Field label="Subject">{record.subject ?? <Unrecorded />}</Field>
          <Field label="Tool">{record.tool ? <span className="font-mono">{record.tool}</span> : <Unrecorded />}</Field>
          <Field label="Amount">
            <AmountText amount={detail.amount} />
          </Field>
          <Field label="Arguments hash">
            {detail.argumentsSha256 ? (
              <span
                className="font-mono text-xs"
                title={`sha256 of the canonical arguments: ${detail.argumentsSha256}`}
                data-testid="record-arguments-sha256"
              >
                {detail.argumentsSha256.slice(0, 16)}…
              </span>
            ) : (
              <Unrecorded what="not recorded" />
            )}
          </Field>
          <Field label="Created">
            <TimeStamp iso={record.createdAt} now={now} />
          </Field>
          <Field label="Updated">
            {record.updatedAt ? <TimeStamp iso={record.updatedAt} now={now} /> : <Unrecorded what="not set" />}
          </Field>
          <Field label="Age">
            <span title={`since ${utcText(record.createdAt)}`}>{formatAge(new Date(record.createdAt), now)}</span>
          </Field>
          <Field label="Deduplicates" span="phone-row">
            <KeyProtectionText protection={detail.protection} now={now} />
          </Field>
          <Field label="Stuck" span="phone-row">
            <span data-testid="record-stuck">
              {stuck.isStuck ? (
                <span className="font-medium text-red-700">yes: in_progress for longer than {stuck.threshold}</span>
              ) : record.status === "in_progress" ? (
                <>no: still within {stuck.threshold}</>
              ) : (
                <>no: {record.status === "completed" ? "completed" : `status ${record.status}`}</>
              )}
              <span className="block text-xs text-slate-500">
                threshold {stuck.threshold}, from {stuck.source}
              </span>
            </span>
          </Field>
          <SearchableFields fields={detail.searchable} />
        </dl>
      </section>

      {/* One column below xl (the two columns are display: contents there), two from xl. A claim still in progress
          puts the processor's column first, so asking it is the next thing on a phone, in focus order as on screen;
          otherwise the timeline alone moves up before the long JSON panels (CSS order: it holds nothing to focus). */}
      <div className="flex flex-col gap-6 xl:grid xl:grid-cols-2">
        {inProgress ? (
          <>
            {processorColumn}
            {callerColumn}
          </>
        ) : (
          <>
            {callerColumn}
            {processorColumn}
          </>
        )}
      </div>

      <Panel title={`Audit entries (${detail.audit.length})`}>
        {detail.audit.length === 0 ? (
          <p className="text-sm text-slate-600">No operator has acted on this record.</p>
        ) : (
          <ol className="space-y-3">
            {detail.audit.map((entry) => (
              <li key={entry.id} className="rounded-md border border-slate-200 p-3 text-sm">
                <div className="flex flex-wrap gap-x-3">
                  <span className="font-mono font-medium">{entry.action}</span>
                  <span>
                    {entry.actor} ({entry.actorRole})
                  </span>
                  <TimeStamp iso={entry.at} now={now} />
                </div>
                {entry.reason ? <p className="mt-1 text-slate-600">{entry.reason}</p> : null}
                <details className="mt-2">
                  <summary className="cursor-pointer text-xs text-slate-500">Before, after and evidence</summary>
                  <JsonView value={{ before: entry.before, after: entry.after, evidence: entry.evidence }} />
                </details>
              </li>
            ))}
          </ol>
        )}
      </Panel>
    </div>
  );
}

const DOT: Record<TimelineEntry["kind"], string> = {
  claim: "bg-slate-500",
  replay_served: "bg-emerald-500",
  in_flight_rejected: "bg-amber-500",
  outcome_unknown: "bg-red-500",
  arguments_mismatch: "bg-orange-500",
  completed: "bg-emerald-700",
  operator: "bg-violet-600",
};

function Timeline({ entries, now }: { entries: TimelineEntry[]; now: Date }) {
  return (
    <ol className="relative space-y-3 border-l border-slate-200 pl-4" data-testid="timeline">
      {entries.map((entry, i) => (
        <li key={i} className="relative text-sm">
          <span className={`absolute -left-[21px] top-1.5 h-2.5 w-2.5 rounded-full ${DOT[entry.kind]}`} aria-hidden />
          <div className="font-medium">{entry.title}</div>
          {/* An event's detail may be one long token (two argument hashes): it wraps anywhere rather than widen the page. */}
          <div className="text-xs text-slate-500 [overflow-wrap:anywhere]">
            {entry.at ? <TimeStamp iso={entry.at} now={now} /> : "time not recorded"}
            {entry.detail ? ` · ${entry.detail}` : ""}
            {entry.delay ? ` · ${formatDelay(entry.delay.ms)} after the claim (${bandLabel(entry.delay.band)})` : ""}
            {entry.client ? ` · from ${entry.client}` : entry.client === null ? " · calling host not recorded" : ""}
          </div>
        </li>
      ))}
    </ol>
  );
}

function formatDelay(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function bandLabel(band: RepeatDelayBand): string {
  return REPEAT_DELAY_BANDS.find((b) => b.band === band)?.label ?? band;
}

/** `id`: a place other pages link to (the Stuck page's "Force release on the record page" goes to #resolve). */
function Panel({
  title,
  id,
  className = "",
  children,
}: {
  title: string;
  id?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section
      className={`min-w-0 scroll-mt-4 rounded-lg border border-slate-200 bg-white p-5 ${className}`}
      aria-label={title}
      id={id}
    >
      <h2 className="mb-3 text-sm font-semibold text-slate-800">{title}</h2>
      {children}
    </section>
  );
}

/** row: the whole width; phone-row: the whole width below md, where a long sentence would not fit half. */
const SPANS = { row: "col-span-2 xl:col-span-3", "phone-row": "col-span-2 md:col-span-1" } as const;

function Field({ label, span, children }: { label: string; span?: keyof typeof SPANS; children: ReactNode }) {
  return (
    <div className={`min-w-0 ${span ? SPANS[span] : ""}`}>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-0.5 [overflow-wrap:anywhere]">{children}</dd>
    </div>
  );
}

/** The amount as the stored response holds it; "not recorded" when it holds none, never 0. */
function AmountText({ amount }: { amount: StoredAmount }) {
  if (amount.state === "recorded")
    return (
      <span className="font-mono" title={`${amount.path} in the stored response`} data-testid="record-amount">
        {amount.text}
      </span>
    );
  const words =
    amount.state === "masked"
      ? "masked"
      : amount.state === "unreadable"
        ? "stored, but not a whole number of cents: see the response"
        : "not recorded";
  return (
    <span data-testid="record-amount" data-state={amount.state}>
      <Unrecorded what={words} />
    </span>
  );
}

function Unrecorded({ what = "unrecorded" }: { what?: string }) {
  return <span className="italic text-slate-500">{what}</span>;
}

/** The panel's name says what it offers: asking only where there is a processor to ask. */
function processorPanelTitle(hasProcessor: boolean, mayResolve: boolean): string {
  if (!hasProcessor) return mayResolve ? "Resolve (no processor to ask)" : "No processor to ask";
  return mayResolve ? "Ask the processor, then resolve" : "Ask the processor";
}
