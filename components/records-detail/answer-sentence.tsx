import type { RecordAnswer } from "@/lib/records/answer-sentence";
import { CopyButton } from "@/components/ui/copy-button";
import { TimeStamp, utcText } from "@/components/ui/time-stamp";

const TONE: Record<RecordAnswer["outcome"], string> = {
  done: "border-emerald-300 bg-emerald-50",
  done_again: "border-amber-300 bg-amber-50",
  refused: "border-sky-300 bg-sky-50",
  not_done: "border-sky-300 bg-sky-50",
  unknown: "border-amber-300 bg-amber-50",
  in_progress: "border-amber-300 bg-amber-50",
  other: "border-slate-300 bg-slate-50",
};

/**
 * The record's answer first: the sentence support reads to the customer, with a copy button,
 * the ids it quotes, and the times it rests on, each named for what it is. The amount is in the
 * record's summary (record-detail-view.tsx), stated once, whatever the outcome.
 */
export function AnswerSentence({ answer, now }: { answer: RecordAnswer; now: Date }) {
  return (
    <section className={`rounded-lg border p-5 ${TONE[answer.outcome]}`} aria-label="Answer for the customer">
      <h2 className="text-xs font-medium uppercase tracking-wide text-slate-600">What to tell the customer</h2>
      <p className="mt-1 text-base font-medium text-slate-900" data-testid="answer-sentence">
        {answer.sentence}
      </p>
      <div className="mt-2">
        <CopyButton text={answer.sentence} label="Copy answer" />
      </div>
      {answer.ids.length > 0 ? (
        <dl className="mt-3 flex flex-wrap gap-x-6 gap-y-2 text-sm">
          {answer.ids.map((id) => (
            <div key={`${id.label}:${id.value}`}>
              <dt className="text-xs font-medium uppercase tracking-wide text-slate-600">{id.label}</dt>
              <dd className="break-all font-mono">{id.value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer text-xs text-slate-700">The times behind it</summary>
        <ol className="mt-2 space-y-1" data-testid="answer-times">
          {answer.times.map((time, i) => (
            <li key={i} className="flex flex-col sm:flex-row sm:gap-3">
              <span className="shrink-0 font-mono text-xs text-slate-800">
                {time.at ? utcText(time.at) : "not recorded"}
              </span>
              <span className="text-slate-700">
                {time.label}
                {time.at ? (
                  <>
                    {" "}
                    (<TimeStamp iso={time.at} now={now} />)
                  </>
                ) : null}
              </span>
            </li>
          ))}
        </ol>
      </details>
    </section>
  );
}
