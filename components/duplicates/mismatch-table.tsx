import { Link } from "@/components/ui/link";
import { StaticTable, type StaticColumn } from "@/components/ui/static-table";
import { formatUtcTime } from "@/lib/duplicates/duplicate-text";
import type { MismatchEntry } from "@/lib/duplicates/list-mismatches";

const notRecorded = <span className="italic text-slate-500">not recorded</span>;

/** A hash's first 12 hex digits, the whole one on hover: enough to tell two apart at a glance. */
function Hash({ value, label }: { value: string | null; label: string }) {
  if (value === null) return notRecorded;
  return (
    <code className="font-mono text-xs" title={`${label}: ${value}`}>
      {value.slice(0, 12)}
    </code>
  );
}

function mismatchColumns(now: string): StaticColumn<MismatchEntry>[] {
  return [
    {
      id: "at",
      header: "Refused",
      cellClassName: "whitespace-nowrap tabular-nums",
      cell: (m) => (
        <time dateTime={m.at} title={m.at.replace("T", " ").replace("Z", " UTC")}>
          {formatUtcTime(m.at, now)}
        </time>
      ),
    },
    { id: "tool", header: "Tool", cellClassName: "font-mono text-xs", cell: (m) => m.tool ?? notRecorded },
    { id: "tenant", header: "Tenant", cellClassName: "text-slate-700", cell: (m) => m.tenant },
    {
      id: "stored",
      header: "Row's arguments",
      cell: (m) => <Hash value={m.storedSha256} label="The row's arguments" />,
    },
    { id: "call", header: "Call's arguments", cell: (m) => <Hash value={m.callSha256} label="The refused call's" /> },
    { id: "client", header: "Host", cellClassName: "text-xs", cell: (m) => m.client ?? notRecorded },
    {
      id: "record",
      header: "Record",
      cell: (m) => (
        <Link
          href={`/records/${m.key}`}
          title={`The row under the reused key: ${m.key}`}
          className="font-mono text-xs text-slate-900 underline underline-offset-2 hover:text-slate-600"
        >
          {m.ref}
        </Link>
      ),
    },
  ];
}

/** Calls the writer refused because their key already held another operation's arguments; `now` from the server. */
export function MismatchTable({ entries, now }: { entries: MismatchEntry[]; now: string }) {
  return (
    <section aria-labelledby="arguments-mismatches" className="mt-6" data-testid="mismatches">
      <h2 id="arguments-mismatches" className="mb-1 text-sm font-semibold text-slate-800">
        Other arguments under a reused key
      </h2>
      <p className="mb-2 text-xs text-slate-600">
        A second call whose key (a business key such as an order id) already held a row with other arguments. The writer
        refused it instead of replaying the first call&apos;s answer, which would have silently suppressed a different
        operation. The newest 20 of the window; the counts per tool are above.
      </p>
      {entries.length > 0 ? (
        <StaticTable
          columns={mismatchColumns(now)}
          rows={entries}
          getRowId={(m) => `${m.key}@${m.at}`}
          testId="mismatch-table"
          rowData={(m) => ({ "data-key": m.key })}
        />
      ) : (
        <p className="text-sm text-slate-600" data-testid="mismatches-empty">
          None in this window. Only writers that record arguments_sha256 and key by a business key alone can refuse one.
        </p>
      )}
    </section>
  );
}
