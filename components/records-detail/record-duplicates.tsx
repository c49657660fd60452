import { Link } from "@/components/ui/link";
import { TimeStamp, utcText } from "@/components/ui/time-stamp";
import { formatGap } from "@/lib/duplicates/duplicate-text";
import type { DuplicateEntryView } from "@/lib/duplicates/duplicates-report";

/**
 * The duplicates the scan found that this claim is part of: the same operation (tenant, subject, tool,
 * arguments) executed under another key less than a window apart, so the side effect happened twice.
 * Shown under the answer: support must not tell the customer "once" when it was twice.
 */
export function RecordDuplicates({
  recordKey,
  duplicates,
  now,
}: {
  recordKey: string;
  duplicates: DuplicateEntryView[];
  now: Date;
}) {
  if (duplicates.length === 0) return null;
  const first = duplicates[0]!;
  const executions = duplicates.length + 1;
  const all = `/duplicates?window=48h&tool=${encodeURIComponent(first.tool)}&tenant=${encodeURIComponent(first.tenant)}`;
  return (
    <section
      className="rounded-lg border border-amber-300 bg-amber-50 p-5"
      aria-label="Duplicates that got through"
      data-testid="record-duplicates"
    >
      <h2 className="text-base font-semibold text-amber-950">
        {/* A lower bound: pairs of this claim only; a chain's farther claims, and claims not scanned yet, are not here. */}
        {executions === 2 ? "This operation ran at least twice" : `This operation ran at least ${executions} times`}
      </h2>
      <p className="mt-1 text-sm text-amber-950">
        The same tenant, subject, tool and arguments were claimed under another key less than a window apart, so the
        idempotency key did not catch the repeat: the side effect happened again.
      </p>
      <ul className="mt-3 space-y-3 text-sm text-slate-900">
        {duplicates.map((entry) => {
          const isSecond = entry.second.key === recordKey;
          const other = isSecond ? entry.first : entry.second;
          return (
            <li key={`${entry.first.key}:${entry.second.key}`} data-testid="record-duplicate">
              {isSecond ? "This claim repeated " : "Repeated as "}
              <Link
                href={`/records/${other.key}`}
                className="font-mono underline underline-offset-2"
                title={`${isSecond ? "the first claim" : "the second claim"}: ${other.key}`}
              >
                {other.ref}
              </Link>
              {", claimed "}
              <TimeStamp iso={other.createdAt} now={now} />
              {`, ${formatGap(entry.gapMs)} ${isSecond ? "earlier" : "later"}`}
              {entry.bucketEdge === null
                ? ", in the same time bucket."
                : `, across the bucket edge at ${utcText(entry.bucketEdge)} (${entry.windowSeconds} s buckets).`}
              <p className="mt-1 text-xs text-slate-700">{entry.fix}</p>
            </li>
          );
        })}
      </ul>
      <p className="mt-3 text-sm">
        <Link href={all} className="underline underline-offset-2">
          {first.tool}’s duplicates for {first.tenant}, last 48 h
        </Link>
      </p>
    </section>
  );
}
